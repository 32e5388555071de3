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
// after a cd) cannot change without a new review.
// The walk is bounded: past treeContentBudget bytes a file counts by its
// size and modification time instead of its content, and past
// treeEntryLimit entries the walk stops, the digest saying so.
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

// treeSHA256 digests the tree under dir in lexical order: each entry's
// relative path, kind, link target (links are not followed) and content
// (regular files). An entry that cannot be read counts as "unreadable".
func treeSHA256(dir string) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	budget := int64(treeContentBudget)
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		e := treeEntry{Path: rel, Kind: "unreadable"}
		if n++; n > treeEntryLimit {
			e.Kind = "truncated"
			_ = enc.Encode(e)
			return filepath.SkipAll
		}
		switch {
		case err != nil:
		case d.Type()&fs.ModeSymlink != 0:
			e.Kind, e.Link = "symlink", readlink(path)
		case d.IsDir():
			e.Kind = "dir"
		case d.Type().IsRegular():
			e.Kind = "file"
			if fi, ierr := d.Info(); ierr == nil {
				e.Size = fi.Size()
				if budget -= fi.Size(); budget < 0 {
					e.MTime = fi.ModTime().UnixNano()
				} else if sum, ferr := fileSHA256(path); ferr == nil {
					e.SHA256 = sum
				}
			}
		default:
			e.Kind = "other"
		}
		_ = enc.Encode(e)
		if err != nil && d != nil && d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

func readlink(path string) string {
	t, err := os.Readlink(path)
	if err != nil {
		return "?"
	}
	return t
}
