package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Pin is what a path a hook's command names was when the user trusted the
// hook (a project's hook: cmd/docket's hook review). A pinned hook runs
// only while every pin still holds: a trusted hook whose script a command
// of the session rewrote must not run the new script under the old trust.
type Pin struct {
	// Path is the argument resolved against the hook's directory.
	Path string `json:"path"`
	// Target is Path after symbolic links; "" when nothing is there.
	Target string `json:"target,omitempty"`
	// State is "file", "missing", "directory" or "other" (a device, a
	// FIFO, a file that cannot be read: never opened).
	State string `json:"state"`
	// SHA256 is the file's content digest, hex, when State is "file";
	// for a directory pinned whole (Tree), the digest of its tree
	// (treeSHA256).
	SHA256 string `json:"sha256,omitempty"`
	// Tree marks a directory pinned with everything under it (PinTree):
	// the directory of a project's config, whose scripts a hook may run
	// in ways no argument shows (after a cd, sourced).
	Tree bool `json:"tree,omitempty"`
}

// PinPath reads what is at path now.
func PinPath(path string) Pin {
	p := Pin{Path: path, State: "missing"}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return p
	}
	p.Target, p.State = target, "other"
	fi, err := os.Stat(target)
	switch {
	case err != nil:
	case fi.IsDir():
		p.State = "directory"
	case fi.Mode().IsRegular():
		if sum, err := fileSHA256(target); err == nil {
			p.State, p.SHA256 = "file", sum
		}
	}
	return p
}

// PinTree reads what is at path now and, for a directory, everything
// under it (treeSHA256). A directory argument is pinned by PinPath alone:
// a hook's arguments name directories it reads (eslint src), which the
// session's commands change, so covering their trees would stop the hook.
func PinTree(path string) Pin {
	p := PinPath(path)
	p.Tree = true
	if p.State == "directory" {
		p.SHA256 = treeSHA256(p.Target)
	}
	return p
}

// changedPin returns what no longer holds of pins, or "" when all do.
func changedPin(pins []Pin) string {
	for _, want := range pins {
		got := PinPath(want.Path)
		if want.Tree {
			got = PinTree(want.Path)
		}
		if got != want {
			return fmt.Sprintf("%s changed since the hook was trusted (now %s), so the hook did not run; review it again with docket hooks", want.Path, got.State)
		}
	}
	return ""
}

func fileSHA256(path string) (string, error) {
	// Non-blocking: a file swapped for a FIFO after its type was read
	// must not hang the review or the run.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
