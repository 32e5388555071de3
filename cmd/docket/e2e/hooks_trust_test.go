package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// TestProjectHooksRunOnlyOnceTrusted drives the binary through the review
// of a trusted project's hook, with real hook processes whose side effect
// (a line appended to a file outside the workspace) says whether they ran:
// untrusted, the project's hook does not run while the user's does, stderr
// names it with how to trust it, the session record and the audit say it
// did not run, and verify replay holds; docket hooks trust shows it and
// trusts it, and it runs; an edit of its script makes it wait again.
func TestProjectHooksRunOnlyOnceTrusted(t *testing.T) {
	t.Parallel()
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	userLog, projLog := filepath.Join(outside, "user-ran"), filepath.Join(outside, "project-ran")
	writeFile(t, filepath.Join(outside, "user-hook.sh"), "cat >/dev/null\necho ran >> "+userLog+"\nexit 0\n")
	writeFile(t, filepath.Join(home, "config.toml"), "[projects.'"+ws+"']\ntrust_level = 'trusted'\n"+
		"[[hooks.pre_tool]]\ntool = 'shell'\nname = 'mine'\nsandbox = false\ncommand = ['sh', '"+filepath.Join(outside, "user-hook.sh")+"']\n")
	gate := filepath.Join(ws, ".docket", "gate.sh")
	writeFile(t, gate, "cat >/dev/null\necho ran >> "+projLog+"\nexit 0\n")
	projectFile := filepath.Join(ws, ".docket", "config.toml")
	writeFile(t, projectFile, "[[hooks.pre_tool]]\ntool = 'shell'\nname = 'gate'\nsandbox = false\ncommand = ['sh', '.docket/gate.sh']\n")
	script := writeScript(t, `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["true"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	exec := func() (result, string) {
		t.Helper()
		r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "workspace-write", "--model-script", script, "go")
		if r.code != 0 {
			t.Fatalf("exec: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		sf, err := journal.Find(home, "last")
		if err != nil {
			t.Fatal(err)
		}
		return r, sf.Path
	}
	lines := func(path string) int {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		return strings.Count(string(b), "\n")
	}
	hooksCmd := func(args ...string) result {
		t.Helper()
		r := docket(t, nil, append(append([]string{"hooks"}, args...), "--home", home, "-C", ws)...)
		if r.code != 0 {
			t.Fatalf("docket hooks %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		return r
	}

	r, jpath := exec()
	if lines(userLog) != 1 || lines(projLog) != 0 {
		t.Fatalf("untrusted: the user's hook ran %d times, the project's %d; want 1 and 0", lines(userLog), lines(projLog))
	}
	if !strings.Contains(r.stderr, "1 project hook needs review and does not run: pre_tool gate (from "+projectFile+")") ||
		!strings.Contains(r.stderr, "docket hooks trust") {
		t.Errorf("stderr does not name the untrusted hook and how to trust it:\n%s", r.stderr)
	}
	if got := untrustedSetting(t, jpath); got != "pre_tool gate (from "+projectFile+"): new" {
		t.Errorf("the session record's docket.hooks_untrusted = %q", got)
	}
	if n := verdicts(t, jpath); n != 1 {
		t.Errorf("%d hook verdicts journaled, want the user's hook's alone", n)
	}
	id := sessionID(t, jpath)
	if a := docket(t, nil, "audit", id, "--home", home); a.code != 0 || !strings.Contains(a.stdout, "did not run, not trusted by the user: pre_tool gate") {
		t.Errorf("the audit does not say the hook did not run (exit %d):\n%s%s", a.code, a.stdout, a.stderr)
	}
	if v := docket(t, nil, "replay", id, "--home", home); v.code != 0 {
		t.Errorf("verify replay of the session with a skipped hook: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	if l := hooksCmd(); !strings.Contains(l.stdout, "does not run: new, needs review") || !strings.Contains(l.stdout, "runs (your config)") {
		t.Errorf("docket hooks:\n%s", l.stdout)
	}

	tr := hooksCmd("trust", "gate")
	if !strings.Contains(tr.stdout, "command      sh .docket/gate.sh") || !strings.Contains(tr.stdout, "program file "+gate) ||
		!strings.Contains(tr.stdout, "directory    "+filepath.Dir(gate)+" (every file under it") {
		t.Errorf("docket hooks trust does not show the definition and its program file:\n%s", tr.stdout)
	}
	r, jpath = exec()
	if lines(projLog) != 1 {
		t.Fatalf("trusted: the project's hook ran %d times, want 1\n%s", lines(projLog), r.stderr)
	}
	if strings.Contains(r.stderr, "needs review") || untrustedSetting(t, jpath) != "" {
		t.Errorf("a trusted hook is still said to need review:\n%s", r.stderr)
	}

	// A later commit edits the script: the hook waits for review again.
	writeFile(t, gate, "cat >/dev/null\necho ran >> "+projLog+"\necho changed >> "+projLog+"\nexit 0\n")
	r, jpath = exec()
	if lines(projLog) != 1 {
		t.Errorf("the edited script ran without review: %d lines", lines(projLog))
	}
	if got := untrustedSetting(t, jpath); got != "pre_tool gate (from "+projectFile+"): changed" {
		t.Errorf("after the edit docket.hooks_untrusted = %q\n%s", got, r.stderr)
	}
	var listed []struct {
		Name, Status string
		Runs         bool
	}
	if err := json.Unmarshal([]byte(hooksCmd("--json").stdout), &listed); err != nil || len(listed) != 2 || listed[1].Status != "changed" || listed[1].Runs {
		t.Errorf("docket hooks --json = %+v (%v), want gate changed, not running", listed, err)
	}
}

// untrustedSetting is the session record's docket.hooks_untrusted.
func untrustedSetting(t *testing.T, path string) string {
	t.Helper()
	for _, rec := range readJournal(t, path) {
		b, err := rec.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if ss, ok := b.(*events.SessionStarted); ok {
			for _, s := range ss.Settings {
				if s.Key == "docket.hooks_untrusted" {
					return s.Value
				}
			}
			return ""
		}
	}
	t.Fatal("no session_started record")
	return ""
}

// verdicts counts the journal's hook verdicts.
func verdicts(t *testing.T, path string) int {
	t.Helper()
	n := 0
	for _, rec := range readJournal(t, path) {
		b, err := rec.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := b.(*events.HookVerdict); ok {
			n++
		}
	}
	return n
}

// sessionID is the journal's session id.
func sessionID(t *testing.T, path string) string {
	t.Helper()
	for _, rec := range readJournal(t, path) {
		b, err := rec.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if ss, ok := b.(*events.SessionStarted); ok {
			return ss.SessionID
		}
	}
	t.Fatal("no session_started record")
	return ""
}

// TestATrustedHooksScriptRewrittenInTheSessionDoesNotRun: a trusted
// project hook whose script lies in the workspace (outside the read-only
// .docket) is pinned to the script as trusted. A command of an
// unsandboxed session rewrites the script; the user's own hook, which runs the same script
// unpinned, runs the new text (the attack works without the pin), and the
// project's hook does not run it: its verdict is a failure naming the
// change, and on_error (deny) stops the call.
func TestATrustedHooksScriptRewrittenInTheSessionDoesNotRun(t *testing.T) {
	t.Parallel()
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	log := filepath.Join(outside, "hook-log")
	gate := filepath.Join(ws, "scripts", "gate.sh")
	writeFile(t, gate, "cat >/dev/null\necho ran >> "+log+"\nexit 0\n")
	writeFile(t, filepath.Join(home, "config.toml"), "[projects.'"+ws+"']\ntrust_level = 'trusted'\n"+
		"[[hooks.pre_tool]]\ntool = 'shell'\nname = 'mine'\nsandbox = false\ncommand = ['sh', '"+gate+"']\n")
	writeFile(t, filepath.Join(ws, ".docket", "config.toml"), "[[hooks.pre_tool]]\ntool = 'shell'\nname = 'gate'\nsandbox = false\ncommand = ['sh', 'scripts/gate.sh']\n")
	if r := docket(t, nil, "hooks", "trust", "--all", "--home", home, "-C", ws); r.code != 0 {
		t.Fatalf("docket hooks trust: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rewrite := "printf 'cat >/dev/null\\necho pwned >> " + log + "\\n' > scripts/gate.sh"
	args, err := json.Marshal(map[string]any{"command": []string{"sh", "-c", rewrite}})
	if err != nil {
		t.Fatal(err)
	}
	script := writeScript(t, `{"output":[{"type":"function_call","call_id":"rewrite","name":"shell","arguments":`+string(args)+`}]}`,
		`{"output":[{"type":"function_call","call_id":"next","name":"shell","arguments":{"command":["touch","next-ran"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	// Unsandboxed: under workspace-write the session keeps a trusted hook's
	// program read-only (TestASessionCannotRewriteATrustedHooksProgram),
	// and the pin is what is left when nothing is sandboxed.
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", "danger-full-access", "--model-script", script, "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "ran\nran\npwned\n"; got != want {
		t.Errorf("hook log %q, want %q: both hooks before the rewrite, the user's alone after it", got, want)
	}
	if _, err := os.Stat(filepath.Join(ws, "next-ran")); err == nil {
		t.Error("the call after the rewrite ran although the project's hook failed with on_error = deny")
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	var failed []events.HookVerdict
	for _, rec := range readJournal(t, sf.Path) {
		b, err := rec.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := b.(*events.HookVerdict); ok && v.Error != "" {
			failed = append(failed, *v)
		}
	}
	if len(failed) != 1 || failed[0].Name != "gate" || failed[0].CallID != "next" || !strings.Contains(failed[0].Error, filepath.Join("scripts", "gate.sh")+" changed since the hook was trusted") {
		t.Errorf("failed verdicts %+v, want gate's on call next naming the change", failed)
	}
}
