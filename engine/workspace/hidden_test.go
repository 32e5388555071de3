package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeSecret(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestHiddenPathsExpandAndFailClosed(t *testing.T) {
	w := t.TempDir()
	outside := t.TempDir()
	writeSecret(t, filepath.Join(w, ".env"))
	writeSecret(t, filepath.Join(w, "a", "b", ".env"))
	writeSecret(t, filepath.Join(w, "a", "keep.txt"))
	writeSecret(t, filepath.Join(outside, "creds"))
	if err := os.Symlink(filepath.Join(outside, "creds"), filepath.Join(w, "link.key")); err != nil {
		t.Fatal(err)
	}
	got, err := HiddenPaths([]string{filepath.Join(w, "**/.env"), filepath.Join(w, "*.key"), filepath.Join(outside, "absent")}, 4, []string{w})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(w, ".env"), filepath.Join(w, "a", "b", ".env"), filepath.Join(outside, "creds")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v (a symlink hides what it leads to; a missing path outside the roots needs nothing)", got, want)
	}

	deep := filepath.Join(w, "d1", "d2", "d3", "d4", "d5")
	writeSecret(t, filepath.Join(deep, "x"))
	linked := filepath.Join(outside, "linked")
	writeSecret(t, linked)
	if err := os.Link(linked, filepath.Join(outside, "second-name")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		patterns []string
		depth    int
		msg      string
	}{
		{"a scan cut by depth", []string{filepath.Join(w, "**/.env")}, 3, "deeper than glob_scan_max_depth = 3"},
		{"a missing path in a writable root", []string{filepath.Join(w, "future.env")}, 4, "could create it"},
		{"a file with another hard link", []string{linked}, 4, "2 hard links"},
	}
	for _, tc := range cases {
		_, err := HiddenPaths(tc.patterns, tc.depth, []string{w})
		var he *HiddenError
		if !errors.As(err, &he) || !strings.Contains(he.Msg, tc.msg) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.msg)
		}
	}
}

// TestAGlobMatchingTooManyFilesIsCutAndRefused: a glob matching 100,000
// files is refused once it passes MaxHiddenPaths (4096), so 5,000 files
// show it; the scan bound is shown with a smaller bound than
// MaxHiddenScan on the same tree.
func TestAGlobMatchingTooManyFilesIsCutAndRefused(t *testing.T) {
	w := t.TempDir()
	for d := 0; d < 5; d++ {
		dir := filepath.Join(w, fmt.Sprintf("d%d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < 1000; f++ {
			fd, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%04d.txt", f)))
			if err != nil {
				t.Fatal(err)
			}
			fd.Close()
		}
	}
	_, err := HiddenPaths([]string{filepath.Join(w, "**/*.txt")}, 16, nil)
	var he *HiddenError
	if !errors.As(err, &he) || !strings.Contains(he.Msg, fmt.Sprintf("more than %d paths", MaxHiddenPaths)) {
		t.Fatalf("err = %v, want the path bound", err)
	}
	_, err = hiddenPaths([]string{filepath.Join(w, "**/*.key")}, 16, nil, 2000, MaxHiddenPaths)
	if !errors.As(err, &he) || !strings.Contains(he.Msg, "2000 entries without finishing") {
		t.Fatalf("err = %v, want the scan bound", err)
	}
	if got, err := hiddenPaths([]string{filepath.Join(w, "**/*.key")}, 16, nil, MaxHiddenScan, MaxHiddenPaths); err != nil || len(got) != 0 {
		t.Fatalf("within the bound: %v %v", got, err)
	}
}
