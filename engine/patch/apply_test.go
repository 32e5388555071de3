package patch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		mustWrite(t, filepath.Join(root, rel), []byte(data))
	}
}

// TestApplyRollsBackWhenAFileChangedAfterCompute changes the last file of a
// patch between Compute and Apply: Apply must refuse it and undo the adds,
// moves, deletes and updates it had already written.
func TestApplyRollsBackWhenAFileChangedAfterCompute(t *testing.T) {
	dir := t.TempDir()
	before := map[string]string{"a.txt": "a\n", "d.txt": "d\n", "m.txt": "m\n", "z.txt": "z\n"}
	writeTree(t, dir, before)
	p := mustParse(t, `*** Begin Patch
*** Update File: a.txt
@@
-a
+A
*** Add File: new/deep/x.txt
+x
*** Delete File: d.txt
*** Update File: m.txt
*** Move to: moved/m.txt
@@
-m
+M
*** Update File: z.txt
@@
-z
+Z
*** End Patch`)
	r, err := Compute(p, dir, OSFS{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "z.txt"), []byte("edited by someone else\n"))
	_, err = Apply(r)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "no files were changed") {
		t.Fatalf("got %v, want ErrConflict and a rollback", err)
	}
	want := readTreeOf(before)
	want["z.txt"] = "edited by someone else\n"
	assertTree(t, readTree(t, dir), want)
}

func TestApplyRefusesAFileThatAppearedAfterCompute(t *testing.T) {
	dir := t.TempDir()
	p := mustParse(t, "*** Begin Patch\n*** Add File: a.txt\n+mine\n*** End Patch")
	r, err := Compute(p, dir, OSFS{})
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir, map[string]string{"a.txt": "theirs\n"})
	if _, err := Apply(r); !errors.Is(err, ErrConflict) {
		t.Fatalf("got %v, want ErrConflict", err)
	}
	assertTree(t, readTree(t, dir), map[string]string{"a.txt": "theirs\n"})
}

func TestSummaryMatchesCodexText(t *testing.T) {
	s := Summary{Added: []string{"a", "b/c"}, Modified: []string{"m"}, Deleted: []string{"d"}}
	want := "Success. Updated the following files:\nA a\nA b/c\nM m\nD d\n"
	if s.String() != want {
		t.Errorf("got %q, want %q", s, want)
	}
}

func TestApplyCreatesFilesWithDefaultPermissions(t *testing.T) {
	dir := t.TempDir()
	if _, err := parseComputeApply("*** Begin Patch\n*** Add File: n/x.txt\n+x\n*** End Patch", dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "n", "x.txt"))
	if err != nil || fi.Mode() != 0o644 {
		t.Errorf("new file mode %v (%v), want -rw-r--r--", fi.Mode(), err)
	}
	di, err := os.Stat(filepath.Join(dir, "n"))
	if err != nil || !di.IsDir() || di.Mode().Perm()&0o700 != 0o700 {
		t.Errorf("new directory mode %v (%v), want a directory its owner can use", di.Mode(), err)
	}
}

func readTreeOf(files map[string]string) map[string]string {
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = v
	}
	return out
}
