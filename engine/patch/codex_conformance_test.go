package patch_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/codextest"
	"github.com/docket-engine/docket/engine/patch"
)

// applyInDir parses, verifies and applies text in dir, as the helper does.
func applyInDir(text, dir string) (patch.Summary, error) {
	p, err := patch.Parse(text)
	if err != nil {
		return patch.Summary{}, err
	}
	r, err := patch.Compute(p, dir, patch.OSFS{})
	if err != nil {
		return patch.Summary{}, err
	}
	return patch.Apply(r)
}

// TestCodexPatchScenarios runs Codex's apply-patch scenario fixtures: each
// input/ tree, patched with patch.txt, must become expected/ (Codex's
// harness checks only the final tree; a rejected patch leaves expected/
// equal to input/).
func TestCodexPatchScenarios(t *testing.T) {
	root := codextest.Path(t, "fixtures/apply_patch/scenarios")
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) == 0 {
		t.Fatalf("%s holds no scenarios", root)
	}
	sc := codextest.NewScorer(t, "fixtures/apply_patch/scenarios", len(dirs))
	for _, name := range dirs {
		dir := filepath.Join(root, name)
		text, err := os.ReadFile(filepath.Join(dir, "patch.txt"))
		if err != nil {
			t.Fatalf("scenario %s: %v", name, err)
		}
		work := t.TempDir()
		copyDir(t, filepath.Join(dir, "input"), work)
		_, aerr := applyInDir(string(text), work)
		mismatch := treeDiff(readDir(t, work), readDir(t, filepath.Join(dir, "expected")))
		if mismatch != "" && aerr != nil {
			mismatch += fmt.Sprintf(" (Docket rejected the patch: %v)", aerr)
		}
		sc.Check(t, name, mismatch)
	}
}

// unitCase is one entry of patch_unit.json.
type unitCase struct {
	ID       string            `json:"id"`
	Source   string            `json:"source"`
	Tool     string            `json:"tool"`
	Argv     []string          `json:"argv"`
	Input    map[string]string `json:"input"`
	Patch    string            `json:"patch"`
	Stdout   string            `json:"codex_stdout"`
	Expect   string            `json:"expect"`
	Expected map[string]string `json:"expected"`
}

// TestCodexPatchUnitCases runs the cases taken from Codex's apply-patch
// parser and library tests. The shell-invocation cases (tool "shell") are
// the engine's: engine.TestCodexPatchThroughShell runs them.
func TestCodexPatchUnitCases(t *testing.T) {
	var data struct {
		Cases []unitCase `json:"cases"`
	}
	codextest.ReadJSON(t, "patch_unit.json", &data)
	if len(data.Cases) == 0 {
		t.Fatal("patch_unit.json holds no cases")
	}
	sc := codextest.NewScorer(t, "patch_unit.json", len(data.Cases))
	for _, c := range data.Cases {
		if c.Tool == "shell" {
			sc.Elsewhere(c.ID)
			continue
		}
		work := t.TempDir()
		writeFiles(t, work, c.Input)
		text := strings.ReplaceAll(c.Patch, "{WS}", work)
		sum, err := applyInDir(text, work)
		got := readDir(t, work)
		var mismatch string
		switch c.Expect {
		case "tree":
			mismatch = treeDiff(got, c.Expected)
			if err != nil {
				mismatch = fmt.Sprintf("rejected: %v; %s", err, mismatch)
			} else if c.Stdout != "" && sum.String() != strings.ReplaceAll(c.Stdout, "{WS}", work) {
				mismatch += fmt.Sprintf("summary %q, Codex prints %q", sum.String(), c.Stdout)
			}
		case "failure_unchanged":
			if err == nil {
				mismatch = "applied; Codex rejects it. "
			}
			mismatch += treeDiff(got, c.Input)
		default:
			t.Fatalf("patch_unit.json %s: unknown expect %q", c.ID, c.Expect)
		}
		sc.Check(t, c.ID, mismatch)
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	files := readDir(t, src)
	writeFiles(t, dst, files)
}

// readDir maps every regular file under root (slash-separated, relative) to
// its content; a missing root is an empty tree.
func readDir(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == root {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// treeDiff says how got differs from want, "" when it does not.
func treeDiff(got, want map[string]string) string {
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
	var b strings.Builder
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !gok:
			fmt.Fprintf(&b, "%s missing (want %q); ", k, w)
		case !wok:
			fmt.Fprintf(&b, "%s unexpected (%q); ", k, g)
		case !bytes.Equal([]byte(g), []byte(w)):
			fmt.Fprintf(&b, "%s is %q, want %q; ", k, g, w)
		}
	}
	return b.String()
}
