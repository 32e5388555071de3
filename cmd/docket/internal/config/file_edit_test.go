package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

func TestTableHeaderKeySplitsDottedAndQuotedKeys(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"[mcp_servers.web]", []string{"mcp_servers", "web"}},
		{"  [[ a . b ]]  # note", []string{"a", "b"}},
		{`[permissions."my.profile".network.domains]`, []string{"permissions", "my.profile", "network", "domains"}},
		{`[a.'x y']`, []string{"a", "x y"}},
		{"key = 1", nil},
		{"[unclosed", nil},
	} {
		got, ok := TableHeaderKey(tc.line)
		if ok != (tc.want != nil) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("TableHeaderKey(%q) = %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
}

// The edit lock is held against another open file of the same lock until
// unlock, so a second Docket process waits instead of losing its edit.
func TestLockFileExcludesAnotherLockerUntilUnlocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "config.toml")
	unlock, err := LockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(path + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("a second locker got %v while the lock was held, want EWOULDBLOCK", err)
	}
	unlock()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("the lock is still held after unlock: %v", err)
	}
}

func TestWriteFileAtomicKeepsTheModeAndLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte("a = 1\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, "a = 2\n"); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a = 2\n" || info.Mode().Perm() != 0o640 {
		t.Errorf("after the write: %q, mode %o; want the new text and mode 640", b, info.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want only config.toml", len(entries))
	}
}
