package hooks

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestADirectoryPinCoversItsTree: a directory pinned whole no longer holds once
// anything under it changes, a FIFO in it is never opened (the pin
// returns), and an unchanged tree still holds.
func TestADirectoryPinCoversItsTree(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"a file's content", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "pkg", "__main__.py"), "evil\n") }},
		{"a new file", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "pkg", "extra.py"), "x\n") }},
		{"a link's target", func(t *testing.T, dir string) {
			link := filepath.Join(dir, "lib")
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			mkdir(t, filepath.Join(dir, "other"))
			if err := os.Symlink("other", link); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file reached through the link", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "lib", "__main__.py"), "evil\n") }},
		{"a file removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "pkg", "__main__.py")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mkdir(t, filepath.Join(dir, "pkg"))
			write(t, filepath.Join(dir, "pkg", "__main__.py"), "print('ok')\n")
			if err := os.Symlink("pkg", filepath.Join(dir, "lib")); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
				t.Fatal(err)
			}
			pins := []Pin{PinTree(dir)}
			if pins[0].State != "directory" || pins[0].SHA256 == "" {
				t.Fatalf("pin %+v, want a directory with its tree's digest", pins[0])
			}
			if msg := changedPin(pins); msg != "" {
				t.Fatalf("an unchanged tree does not hold: %s", msg)
			}
			tc.change(t, dir)
			if msg := changedPin(pins); msg == "" {
				t.Errorf("after a change to %s the directory's pin still holds", tc.name)
			}
		})
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestADirectoryArgumentIsNotPinnedWhole: a directory a hook's argument
// names (eslint src) is pinned as a directory, not its tree: the
// session's commands edit it, and the hook must still run.
func TestADirectoryArgumentIsNotPinnedWhole(t *testing.T) {
	dir := t.TempDir()
	pins := []Pin{PinPath(dir)}
	write(t, filepath.Join(dir, "main.go"), "package main\n")
	if msg := changedPin(pins); msg != "" {
		t.Errorf("an edit inside a directory argument stops the hook: %s", msg)
	}
}

// TestATreePinEndsOnALinkLoop: a link back into the tree is recorded and
// not walked again, so the pin returns and holds.
func TestATreePinEndsOnALinkLoop(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "gate.sh"), "exit 0\n")
	if err := os.Symlink(".", filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	pins := []Pin{PinTree(dir)}
	if msg := changedPin(pins); msg != "" {
		t.Errorf("a tree with a link loop does not hold: %s", msg)
	}
}
