package patch

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// updateGolden regenerates expected/, summary.txt and error.txt when set.
const updateGoldenEnv = "DOCKET_UPDATE_GOLDEN"

// TestGolden runs every case under testdata/cases: input/ is copied to a
// temporary workdir, patch.txt is parsed, computed and applied, and the
// workdir must then equal expected/ with summary.txt printed, or, when the
// case has error.txt, the error must read exactly so and the workdir must
// still equal input/ (nothing written, not even a directory).
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "cases", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	update := os.Getenv(updateGoldenEnv) != ""
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			work := t.TempDir()
			input := filepath.Join(dir, "input")
			copyTree(t, input, work)
			text, err := os.ReadFile(filepath.Join(dir, "patch.txt"))
			if err != nil {
				t.Fatal(err)
			}
			sum, err := parseComputeApply(string(text), work)
			got := readTree(t, work)
			errFile := filepath.Join(dir, "error.txt")
			if update {
				writeGolden(t, dir, sum, err, work)
				return
			}
			want, rerr := os.ReadFile(errFile)
			wantErr := rerr == nil
			if wantErr {
				if err == nil {
					t.Fatalf("applied, want error:\n%s", want)
				}
				if err.Error() != strings.TrimSuffix(string(want), "\n") {
					t.Errorf("error:\n%s\nwant:\n%s", err, want)
				}
				assertTree(t, got, readTree(t, input))
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			wantSum, _ := os.ReadFile(filepath.Join(dir, "summary.txt"))
			if sum.String() != string(wantSum) {
				t.Errorf("summary:\n%s\nwant:\n%s", sum, wantSum)
			}
			assertTree(t, got, readTree(t, filepath.Join(dir, "expected")))
		})
	}
}

func parseComputeApply(text, workdir string) (Summary, error) {
	p, err := Parse(text)
	if err != nil {
		return Summary{}, err
	}
	r, err := Compute(p, workdir, OSFS{})
	if err != nil {
		return Summary{}, err
	}
	return Apply(r)
}

func writeGolden(t *testing.T, dir string, sum Summary, err error, work string) {
	t.Helper()
	for _, name := range []string{"expected", "summary.txt", "error.txt"} {
		if rerr := os.RemoveAll(filepath.Join(dir, name)); rerr != nil {
			t.Fatal(rerr)
		}
	}
	if err != nil {
		mustWrite(t, filepath.Join(dir, "error.txt"), []byte(err.Error()+"\n"))
		return
	}
	mustWrite(t, filepath.Join(dir, "summary.txt"), []byte(sum.String()))
	copyTree(t, work, filepath.Join(dir, "expected"))
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files under src (if it exists) into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == src {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		mustWrite(t, filepath.Join(dst, rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readTree maps every file under root to its content, and every empty
// directory to "<empty dir>", so stray temporary files and directories show.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == root {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if ents, err := os.ReadDir(path); err == nil && len(ents) == 0 && path != root {
				out[rel+"/"] = "<empty dir>"
			}
			return nil
		}
		data, err := os.ReadFile(path)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !gok:
			t.Errorf("%s: missing, want %q", k, w)
		case !wok:
			t.Errorf("%s: unexpected file %q", k, g)
		case !bytes.Equal([]byte(g), []byte(w)):
			t.Errorf("%s:\n got %q\nwant %q", k, g, w)
		}
	}
}
