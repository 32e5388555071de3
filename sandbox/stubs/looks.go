package stubs

import "os"

// Mode marks an empty directory docket created so that a missing
// protected path has something to bind read-only over.
const Mode = 0o555

// LooksLikeStub reports whether the directory at p (fi its Lstat) looks
// like a stub: empty and of mode Mode. A session keeps the stubs of /tmp
// while it runs, and git takes no empty .git for a repository, so code
// looking for a project's root skips one rather than make /tmp the root
// of every project below it.
func LooksLikeStub(p string, fi os.FileInfo) bool {
	if !fi.IsDir() || fi.Mode().Perm() != Mode {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // a directory opened for reading: nothing to flush
	names, _ := f.Readdirnames(1)
	return len(names) == 0
}
