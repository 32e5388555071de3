package stubs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// needUserXattrs skips where dir's file system keeps no user attributes:
// there stubs go unmarked, and only records prove them docket's.
func needUserXattrs(t *testing.T, dir string) {
	t.Helper()
	err := unix.Setxattr(dir, markAttr+".probe", []byte("1"), 0)
	if errors.Is(err, unix.ENOTSUP) {
		t.Skipf("%s keeps no user extended attributes", dir)
	}
	must(t, err)
	must(t, unix.Removexattr(dir, markAttr+".probe"))
}

// TestAStubIsRemovedByTheLastRunOutWhicheverHomeMadeIt: two docket runs
// with different records directories (two DOCKET_HOMEs) share a stub;
// the maker leaves first, so its record stays in its home, and the last
// one out, finding no record in its own, still removes the stub by its
// mark. Without the mark the stub stayed for ever.
func TestAStubIsRemovedByTheLastRunOutWhicheverHomeMadeIt(t *testing.T) {
	for _, tc := range []struct {
		name                string
		makerKept, lastKept bool // through a session's Keeper rather than per call
		makerRecords        bool
	}{
		{name: "per call, both recorded in their own homes", makerRecords: true},
		{name: "both kept by sessions", makerKept: true, lastKept: true, makerRecords: true},
		{name: "the maker kept by a session, the last per call", makerKept: true, makerRecords: true},
		{name: "the maker per call, the last kept by a session", lastKept: true, makerRecords: true},
		{name: "the maker recorded nowhere", makerRecords: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			needUserXattrs(t, ws)
			p := filepath.Join(ws, ".git")
			t.Cleanup(func() { _ = os.Chmod(p, 0o755) })
			recordsA, recordsB := "", filepath.Join(t.TempDir(), "stubs")
			if tc.makerRecords {
				recordsA = filepath.Join(t.TempDir(), "stubs")
			}
			hold := func(kept bool, records string) func() {
				if kept {
					var k Keeper
					if _, err := k.Hold([]string{p}, []string{ws}, records); err != nil {
						t.Fatal(err)
					}
					return func() { must(t, k.Close()) }
				}
				_, release, err := Hold([]string{p}, []string{ws}, records)
				if err != nil {
					t.Fatal(err)
				}
				return release
			}
			leaveA := hold(tc.makerKept, recordsA)
			fi, err := os.Lstat(p)
			if err != nil || fi.Mode().Perm() != Mode {
				t.Fatalf("the maker's stub %s: %v, %v; want a %o directory", p, fi, err, Mode)
			}
			leaveB := hold(tc.lastKept, recordsB)
			leaveA()
			if !isDir(p) {
				t.Fatalf("%s removed while another run still holds it", p)
			}
			leaveB()
			if isDir(p) {
				t.Errorf("%s still there after the last run out left", p)
			}
		})
	}
}

// TestAForgedMarkRemovesNothing: a directory at a protected name that
// docket did not make stays, whatever mark it carries unless the mark
// names that very directory: one copied from a real stub names another.
// The last case shows the mark is what is looked at: the same directory
// marked as itself is removed.
func TestAForgedMarkRemovesNothing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mark     func(t *testing.T, dir string) []byte // nil: no mark
		notEmpty bool
		want     bool // whether the directory is there afterwards
	}{
		{name: "unmarked (the user's)", want: true},
		{name: "a mark copied from a real stub", mark: copiedMark, want: true},
		{name: "a mark naming nothing", mark: func(*testing.T, string) []byte { return []byte("docket") }, want: true},
		{name: "a mark naming itself but not empty", mark: ownMark, notEmpty: true, want: true},
		{name: "a mark naming itself (control)", mark: ownMark, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			needUserXattrs(t, ws)
			p := filepath.Join(ws, ".docket")
			t.Cleanup(func() { _ = os.Chmod(p, 0o755) })
			must(t, os.Mkdir(p, 0o755))
			if tc.notEmpty {
				must(t, os.WriteFile(filepath.Join(p, "config.toml"), nil, 0o644))
			}
			if tc.mark != nil {
				must(t, unix.Setxattr(p, markAttr, tc.mark(t, p), 0))
			}
			must(t, os.Chmod(p, Mode))
			_, release, err := Hold([]string{p}, []string{ws}, filepath.Join(t.TempDir(), "stubs"))
			if err != nil {
				t.Fatal(err)
			}
			release()
			if got := isDir(p); got != tc.want {
				t.Errorf("%s there afterwards: %t, want %t", p, got, tc.want)
			}
		})
	}
}

// copiedMark is the mark of a real stub docket makes elsewhere (held
// until the test ends, so its identity is not reused meanwhile).
func copiedMark(t *testing.T, _ string) []byte {
	ws := t.TempDir()
	_, release, err := Hold([]string{filepath.Join(ws, ".git")}, []string{ws}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	buf := make([]byte, markMax)
	n, err := unix.Getxattr(filepath.Join(ws, ".git"), markAttr, buf)
	if err != nil || n == 0 {
		t.Fatalf("docket's stub carries no mark: %v", err)
	}
	return buf[:n]
}

// ownMark is the mark naming dir itself, as docket sets it.
func ownMark(t *testing.T, dir string) []byte {
	dev, ino, birth, err := identity(unix.AT_FDCWD, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	return markValue(dev, ino, birth)
}
