package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/render/jsonlschema"
)

// The side-by-side suite drives `codex exec --json` (0.169, and 0.171
// when installed) and `docket exec --json` against the same scripted
// Responses server, scenario by scenario, and compares what a client sees:
// the event stream, the text the model got back for each call, the
// workspace left behind and the exit code. A difference must be listed in
// docs/codex-differences.md's side-by-side table (first cell
// `exec:SCENARIO`, second the aspect in backquotes); an unlisted
// difference fails, and so does a listed one that no longer differs.

// sideScenario is one scripted run.
type sideScenario struct {
	name    string
	sandbox string
	turns   []turnScript
}

func sideScenarios() []sideScenario {
	move := "*** Begin Patch\n*** Update File: f.txt\n*** Move to: g.txt\n@@\n-old\n+new\n*** End Patch\n"
	add := "*** Begin Patch\n*** Add File: h.txt\n+hello\n*** End Patch\n"
	return []sideScenario{
		{"message", "read-only", []turnScript{{items: []map[string]any{assistantMessage("done")}}}},
		{"unknown_tool", "read-only", []turnScript{{items: []map[string]any{functionCall("call_u", "no_such_tool", `{}`)}},
			{items: []map[string]any{assistantMessage("done")}}}},
		{"patch_move", "danger-full-access", []turnScript{{items: []map[string]any{patchCall("call_m", move)}},
			{items: []map[string]any{assistantMessage("done")}}}},
		{"patch_add", "danger-full-access", []turnScript{{items: []map[string]any{patchCall("call_a", add)}},
			{items: []map[string]any{assistantMessage("done")}}}},
		{"patch_read_only", "read-only", []turnScript{{items: []map[string]any{patchCall("call_r", add)}},
			{items: []map[string]any{assistantMessage("done")}}}},
		{"stream_failed", "read-only", []turnScript{{failMsg: "the model broke"}}},
		{"http_400", "read-only", []turnScript{{status: 400}}},
	}
}

// codexBinaries are the Codex CLIs to compare with, by version: 0.169 from
// scripts/install-codex.sh, 0.171 from $DOCKET_CODEX171 (or
// .cache/codex171, which the script installs too).
func codexBinaries(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	if p := codexCLI(t); p != "" {
		out["0.169"] = p
	}
	p171 := os.Getenv("DOCKET_CODEX171")
	if p171 == "" {
		p171, _ = filepath.Abs(filepath.Join("..", "..", "..", ".cache", "codex171", "node_modules", ".bin", "codex"))
	}
	if _, err := os.Stat(p171); err == nil {
		out["0.171"] = p171
	}
	return out
}

// sideRun is what one CLI did in one scenario.
type sideRun struct {
	code      int
	events    []string          // normalised stream
	errors    []string          // error and turn.failed messages
	modelText map[string]string // what the model got back, by call id
	workspace string            // digest of the files left
	stream    string
}

func sideWorkspace(t *testing.T) string {
	ws := t.TempDir()
	for _, c := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if c[0] == "add" {
			if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("git", c...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", c, err, out)
		}
	}
	return ws
}

// providerTOML is the mock provider both CLIs are given.
func providerTOML(url string) string {
	return fmt.Sprintf(`model = "gpt-5.5"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = %q
env_key = "MOCK_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, url)
}

func runSide(t *testing.T, sc sideScenario, bin string, codex bool) sideRun {
	t.Helper()
	srv, url := newScriptedResponses(t, sc.turns...)
	ws := sideWorkspace(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(providerTOML(url)), 0o644); err != nil {
		t.Fatal(err)
	}
	var r result
	if codex {
		r = runIn(t, bin, ws, []string{"CODEX_HOME=" + home, "MOCK_KEY=sk-side"}, "exec", "--json", "-s", sc.sandbox, "do it")
	} else {
		r = runIn(t, bin, ws, []string{"DOCKET_HOME=" + home, "MOCK_KEY=sk-side"}, "exec", "--json", "-s", sc.sandbox, "do it")
	}
	run := sideRun{code: r.code, modelText: map[string]string{}, stream: r.stdout}
	// Both streams are what the schema of the default stream allows: the
	// schema is checked against the real Codex here.
	schema, err := jsonlschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Codex().Validate(strings.NewReader(r.stdout)); err != nil {
		t.Errorf("codex %v: the stream breaks the schema of the default stream: %v\n%s", codex, err, r.stdout)
	}
	sc2 := bufio.NewScanner(strings.NewReader(r.stdout))
	sc2.Buffer(nil, 16<<20)
	for sc2.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc2.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON: %q", sc2.Text())
		}
		typ, _ := ev["type"].(string)
		switch typ {
		case "thread.started":
			ev["thread_id"] = "THREAD"
		case "error":
			run.errors = append(run.errors, fmt.Sprint(ev["message"]))
			ev["message"] = "MESSAGE"
		case "turn.failed":
			e, _ := ev["error"].(map[string]any)
			run.errors = append(run.errors, fmt.Sprint(e["message"]))
			ev["error"] = "MESSAGE"
		}
		b, _ := json.Marshal(ev)
		run.events = append(run.events, strings.ReplaceAll(string(b), ws, "WS"))
	}
	for _, req := range srv.requests() {
		for id, text := range toolOutputs(req) {
			run.modelText[id] = text
		}
	}
	run.workspace = treeDigest(t, ws)
	return run
}

// treeDigest sums the workspace's files (not .git): names and contents.
func treeDigest(t *testing.T, root string) string {
	h := sha256.New()
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	for _, n := range names {
		b, _ := os.ReadFile(filepath.Join(root, n))
		fmt.Fprintf(h, "%s\x00%s\x00", n, b)
	}
	return strings.Join(names, ",") + ":" + hex.EncodeToString(h.Sum(nil))[:12]
}

// sideDifferences reads the side-by-side rows of docs/codex-differences.md:
// scenario -> aspect -> the line listing it.
func sideDifferences(t *testing.T) map[string]map[string]int {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "codex-differences.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]int{}
	for i, line := range strings.Split(string(b), "\n") {
		row := strings.TrimSpace(line)
		if !strings.HasPrefix(row, "| `exec:") {
			continue
		}
		cells := strings.Split(strings.Trim(row, "|"), "|")
		if len(cells) != 4 || strings.TrimSpace(cells[2]) == "" || strings.TrimSpace(cells[3]) == "" {
			t.Fatalf("codex-differences.md:%d: a side-by-side row has four cells: scenario, aspect, what Docket does, why", i+1)
		}
		sc := strings.TrimPrefix(strings.Trim(strings.TrimSpace(cells[0]), "`"), "exec:")
		aspect := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if out[sc] == nil {
			out[sc] = map[string]int{}
		}
		out[sc][aspect] = i + 1
	}
	return out
}

// TestExecSideBySideWithCodex is the side-by-side suite.
func TestExecSideBySideWithCodex(t *testing.T) {
	bins := codexBinaries(t)
	if len(bins) == 0 {
		t.Skip("no Codex CLI installed: scripts/install-codex.sh")
	}
	listed := sideDifferences(t)
	scenarios := sideScenarios()
	known := map[string]bool{}
	for _, sc := range scenarios {
		known[sc.name] = true
	}
	for sc := range listed {
		if !known[sc] {
			t.Errorf("codex-differences.md lists exec:%s, which no scenario has", sc)
		}
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			d := runSide(t, sc, docketBin, false)
			found := map[string]string{}
			for _, version := range slices.Sorted(func(yield func(string) bool) {
				for v := range bins {
					if !yield(v) {
						return
					}
				}
			}) {
				c := runSide(t, sc, bins[version], true)
				for aspect, why := range compareSide(c, d) {
					found[aspect] += fmt.Sprintf("codex %s: %s\n", version, why)
				}
			}
			for aspect, why := range found {
				if _, ok := listed[sc.name][aspect]; !ok {
					t.Errorf("unlisted difference exec:%s `%s`:\n%s\ndocket stream:\n%s", sc.name, aspect, why, d.stream)
				}
			}
			for aspect, line := range listed[sc.name] {
				if _, ok := found[aspect]; !ok {
					t.Errorf("codex-differences.md:%d lists exec:%s `%s`, which no longer differs", line, sc.name, aspect)
				}
			}
		})
	}
}

// compareSide returns each aspect in which docket's run differs from
// codex's, with the two values.
func compareSide(c, d sideRun) map[string]string {
	out := map[string]string{}
	if c.code != d.code {
		out["exit_code"] = fmt.Sprintf("codex %d, docket %d", c.code, d.code)
	}
	if !slices.Equal(c.events, d.events) {
		out["stream"] = fmt.Sprintf("codex:\n%s\ndocket:\n%s", strings.Join(c.events, "\n"), strings.Join(d.events, "\n"))
	}
	if !slices.Equal(c.errors, d.errors) {
		out["error_message"] = fmt.Sprintf("codex %q, docket %q", c.errors, d.errors)
	}
	if len(c.modelText) != len(d.modelText) {
		out["model_text"] = fmt.Sprintf("codex %q, docket %q", c.modelText, d.modelText)
	} else {
		for id, ct := range c.modelText {
			if dt, ok := d.modelText[id]; !ok || dt != ct {
				out["model_text"] = fmt.Sprintf("codex %q, docket %q", c.modelText, d.modelText)
			}
		}
	}
	if c.workspace != d.workspace {
		out["workspace"] = fmt.Sprintf("codex %s, docket %s", c.workspace, d.workspace)
	}
	return out
}
