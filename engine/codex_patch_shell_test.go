package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/codextest"
	"github.com/docket-engine/docket/events"
)

// TestCodexPatchThroughShell runs the patch_unit.json cases in which Codex
// intercepts apply_patch sent through the shell tool (tool "shell"): each
// argv goes to Docket's shell tool in a real session, and the workspace
// must end as Codex's does. engine/patch's test runs the other cases.
func TestCodexPatchThroughShell(t *testing.T) {
	t.Parallel()
	var data struct {
		Cases []struct {
			ID       string            `json:"id"`
			Tool     string            `json:"tool"`
			Argv     []string          `json:"argv"`
			Input    map[string]string `json:"input"`
			Expect   string            `json:"expect"`
			Expected map[string]string `json:"expected"`
		} `json:"cases"`
	}
	codextest.ReadJSON(t, "patch_unit.json", &data)
	sc := codextest.NewScorer(t, "patch_unit.json", len(data.Cases))
	for _, c := range data.Cases {
		if c.Tool != "shell" {
			sc.Elsewhere(c.ID)
			continue
		}
		var mismatch string
		ran := false // false when -run filters the subtest out
		t.Run(c.ID, func(t *testing.T) {
			ran = true
			a, _ := json.Marshal(map[string]any{"command": c.Argv})
			item := fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":%s}]}`, a)
			f := newFixture(t, setup{approval: "on-request", mode: "workspace-write", script: item + "\n" + done})
			for rel, content := range c.Input {
				p := filepath.Join(f.ws, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f.turn("go")
			want := c.Expected
			if c.Expect != "tree" {
				want = c.Input
			}
			if d := wsDiff(t, f.ws, want); d != "" {
				mismatch = d + fmt.Sprintf(" (model told %q, path %s)", outputOf(f, "c1"), f.path("c1"))
			}
			if c.Expect == "tree" && mismatch == "" && f.startedTool("c1") != "apply_patch" {
				mismatch = "applied, but not journaled as an apply_patch call"
			}
		})
		if ran {
			sc.Check(t, c.ID, mismatch)
		}
	}
}

// startedTool returns the tool of a call's first exec_started record.
func (f *fixture) startedTool(callID string) string {
	recs, err := f.j.Call(callID)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind == events.KindExecStarted {
			b, _ := r.Decode()
			return b.(*events.ExecStarted).Tool
		}
	}
	return ""
}

// wsDiff says how the workspace's regular files differ from want.
func wsDiff(t *testing.T, root string, want map[string]string) string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b, err := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
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
			fmt.Fprintf(&b, "%s missing; ", k)
		case !wok:
			fmt.Fprintf(&b, "%s unexpected; ", k)
		case g != w:
			fmt.Fprintf(&b, "%s is %q, want %q; ", k, g, w)
		}
	}
	return b.String()
}
