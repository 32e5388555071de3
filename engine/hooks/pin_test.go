package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPinsHoldUntilThePathChanges: a pin taken of a path holds while
// nothing there changes, and any change breaks it: new content, the file
// removed, a symbolic link pointed elsewhere, a file created where there
// was none. A FIFO is pinned as "other" without being opened (opening it
// would block).
func TestPinsHoldUntilThePathChanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, p string)
		change func(t *testing.T, p string)
		state  string
	}{
		{"content", func(t *testing.T, p string) { write(t, p, "a") }, func(t *testing.T, p string) { write(t, p, "b") }, "file"},
		{"removed", func(t *testing.T, p string) { write(t, p, "a") }, func(t *testing.T, p string) { remove(t, p) }, "file"},
		{"created", func(*testing.T, string) {}, func(t *testing.T, p string) { write(t, p, "a") }, "missing"},
		{"link retargeted", func(t *testing.T, p string) {
			write(t, p+".1", "same")
			write(t, p+".2", "same")
			link(t, p+".1", p)
		}, func(t *testing.T, p string) { remove(t, p); link(t, p+".2", p) }, "file"},
		{"fifo replaced", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, p string) { remove(t, p); write(t, p, "a") }, "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "hook.sh")
			tc.setup(t, p)
			pins := []Pin{PinPath(p)}
			if pins[0].State != tc.state {
				t.Fatalf("pinned state %q, want %q", pins[0].State, tc.state)
			}
			if msg := changedPin(pins); msg != "" {
				t.Fatalf("an unchanged path is reported changed: %s", msg)
			}
			tc.change(t, p)
			if msg := changedPin(pins); !strings.Contains(msg, p+" changed since the hook was trusted") {
				t.Errorf("after the change: %q", msg)
			}
		})
	}
}

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}
