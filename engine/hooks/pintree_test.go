package hooks

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestADirectoryPinCoversItsTree: a pinned directory no longer holds once
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
			if err := os.Symlink("/etc", link); err != nil {
				t.Fatal(err)
			}
		}},
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
			pins := []Pin{PinPath(dir)}
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
