package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
)

// A tree pin (PinTree) covers every entry under a directory, so that what
// a trusted hook runs from it (a file its script sources, a script named
// after a cd) cannot change without a new review. A link in the tree is
// followed (its target's content, or its directory's tree, is covered
// too): .docket/lib -> ../scripts would otherwise lead the script out of
// the pinned tree to files nobody reviewed. The walk is bounded: past
// treeContentBudget bytes a file counts by its size and modification time
// instead of its content, and past treeEntryLimit entries (a link loop
// ends there too) the walk stops, the digest saying so.
const (
	treeEntryLimit    = 20000
	treeContentBudget = 256 << 20
)

// treeEntry is one entry of a directory's tree as its digest covers it.
type treeEntry struct {
	Path   string `json:"p"`
	Kind   string `json:"k"`
	Link   string `json:"l,omitempty"`
	SHA256 string `json:"s,omitempty"`
	Size   int64  `json:"z,omitempty"`
	MTime  int64  `json:"m,omitempty"`
}

// treeWalk is one digest's walk: its output and what is left of its
// bounds.
type treeWalk struct {
	enc     *json.Encoder
	budget  int64
	entries int
	// seen are the directories walked, resolved: a link back into one
	// (a loop, or two links to one place) is recorded, not walked again.
	seen map[string]bool
}

// treeSHA256 digests the tree under dir in lexical order: each entry's
// relative path, kind, link target and content (regular files). An entry
// that cannot be read counts as "unreadable".
func treeSHA256(dir string) string {
	h := sha256.New()
	w := &treeWalk{enc: json.NewEncoder(h), budget: treeContentBudget, seen: map[string]bool{}}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		w.seen[real] = true
	}
	w.walk(dir, "")
	return hex.EncodeToString(h.Sum(nil))
}

// walk digests the tree under dir, its entries' paths under prefix; false
// once the entry limit stopped it.
func (w *treeWalk) walk(dir, prefix string) bool {
	done := true
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		e := treeEntry{Path: filepath.Join(prefix, rel), Kind: "unreadable"}
		if w.entries++; w.entries > treeEntryLimit {
			e.Kind = "truncated"
			_ = w.enc.Encode(e)
			done = false
			return filepath.SkipAll
		}
		var follow string
		switch {
		case err != nil:
		case d.Type()&fs.ModeSymlink != 0:
			e.Kind, e.Link = "symlink", readlink(path)
			if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
				// WalkDir does not descend a link: walk what it
				// resolves to, once.
				if real, rerr := filepath.EvalSymlinks(path); rerr == nil && !w.seen[real] {
					w.seen[real] = true
					follow = real
				}
			} else if serr == nil && fi.Mode().IsRegular() {
				w.file(&e, path, fi)
			}
		case d.IsDir():
			e.Kind = "dir"
		case d.Type().IsRegular():
			e.Kind = "file"
			if fi, ierr := d.Info(); ierr == nil {
				w.file(&e, path, fi)
			}
		default:
			e.Kind = "other"
		}
		_ = w.enc.Encode(e)
		if follow != "" && !w.walk(follow, e.Path) {
			done = false
			return filepath.SkipAll
		}
		if err != nil && d != nil && d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	return done
}

// file sets e's content digest, or its size and modification time once
// the content budget is spent.
func (w *treeWalk) file(e *treeEntry, path string, fi fs.FileInfo) {
	e.Size = fi.Size()
	if e.Size == 0 {
		// Nothing to read, and a link may lead to /proc, whose files
		// say 0 and some of which block a reader.
		return
	}
	if w.budget -= fi.Size(); w.budget < 0 {
		e.MTime = fi.ModTime().UnixNano()
		return
	}
	if sum, err := fileSHA256(path); err == nil {
		e.SHA256 = sum
	}
}

func readlink(path string) string {
	t, err := os.Readlink(path)
	if err != nil {
		return "?"
	}
	return t
}
