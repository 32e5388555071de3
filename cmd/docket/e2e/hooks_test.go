package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// hookScripts writes the hook scripts of the hook tests into dir and
// returns their paths by name.
func hookScripts(t *testing.T, dir, outside string) map[string]string {
	t.Helper()
	scripts := map[string]string{
		"allow":      "cat >/dev/null\nexit 0\n",
		"exit2":      "cat >/dev/null\necho 'pushing is for humans' >&2\nexit 2\n",
		"json-deny":  "cat >/dev/null\necho '{\"decision\":\"deny\",\"reason\":\"json says no\"}'\n",
		"json-ask":   "cat >/dev/null\necho '{\"decision\":\"ask\",\"reason\":\"a person should look\"}'\n",
		"garbage":    "cat >/dev/null\necho 'this is not json'\n",
		"hang":       "sleep 1000 &\necho $! > " + filepath.Join(outside, "hang.pid") + "\nwait\n",
		"crash":      "kill -SEGV $$\n",
		"escape":     "echo pwned > " + filepath.Join(outside, "escaped") + "\nexit 0\n",
		"escape-off": "echo pwned > " + filepath.Join(outside, "escaped-unsandboxed") + "\nexit 0\n",
		// The call's JSON is on stdin: the hook can see which call it judges.
		"stdin":     "grep -q '\"call_id\":\"s1\"' || { echo 'no call on stdin' >&2; exit 2; }\n",
		"post-note": "cat >/dev/null\necho 'post hook saw it' >&2\nexit 2\n",
	}
	out := map[string]string{}
	for name, body := range scripts {
		p := filepath.Join(dir, name+".sh")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	return out
}

// hookConfig is a config.toml with one pre_tool hook per call, matched by
// the call's argv, and one post_tool hook.
func hookConfig(s map[string]string) string {
	var b strings.Builder
	pre := func(target, script, extra string) {
		fmt.Fprintf(&b, "[[hooks.pre_tool]]\ntool = \"shell\"\nargv_prefix = [\"touch\", %q]\ncommand = [%q]\n%s\n", target, script, extra)
	}
	pre("allowed", s["allow"], "")
	pre("exit2", s["exit2"], "")
	pre("json-deny", s["json-deny"], "")
	pre("ask", s["json-ask"], "")
	pre("garbage", s["garbage"], "")
	pre("garbage-allowed", s["garbage"], "on_error = \"allow\"")
	pre("hang", s["hang"], "timeout_sec = 1\nsandbox = false")
	pre("crash", s["crash"], "")
	pre("escape", s["escape"], "")
	pre("escape-off", s["escape-off"], "sandbox = false")
	pre("s1", s["stdin"], "")
	fmt.Fprintf(&b, "[[hooks.post_tool]]\ntool = \"sh*\"\nargv_prefix = [\"touch\", \"allowed\"]\ncommand = [%q]\n", s["post-note"])
	return b.String()
}

type hookCall struct {
	target   string // the file `touch` creates, and the call id
	runs     bool   // the call ran (the file exists)
	cause    string // the cause of the call's last transition
	output   string // a piece of what the model was told
	decision events.HookDecision
	failed   bool // the hook's verdict records a failure
}

// TestHooksJudgeCallsThroughTheBinary runs one session whose every call is
// judged by a different real hook script: allow, deny by exit 2 (the model
// sees the stderr), deny by JSON, ask (answered "denied"), garbage output
// (on_error deny, and allow), a hang past its timeout, a crash, a
// sandboxed hook that tries to write outside (and the same hook unsandboxed,
// which can), and a post_tool hook whose note reaches the model. Then the
// hook scripts are deleted and verify replay still holds: hooks are inputs.
func TestHooksJudgeCallsThroughTheBinary(t *testing.T) {
	t.Parallel()
	home, ws, outside, hookDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	s := hookScripts(t, hookDir, outside)
	writeFile(t, filepath.Join(home, "config.toml"), hookConfig(s))
	calls := []hookCall{
		{target: "allowed", runs: true, cause: "completed", output: "post_tool hook post-note.sh: post hook saw it", decision: events.HookAllow},
		{target: "exit2", cause: "hook_denied", output: "Not run: denied by pre_tool hook exit2.sh: pushing is for humans", decision: events.HookDeny},
		{target: "json-deny", cause: "hook_denied", output: "denied by pre_tool hook json-deny.sh: json says no", decision: events.HookDeny},
		{target: "ask", cause: "user_denied", output: "the user denied it", decision: events.HookAsk},
		{target: "garbage", cause: "hook_failed", output: "printed something that is not a JSON answer", decision: events.HookDeny, failed: true},
		{target: "garbage-allowed", runs: true, cause: "completed", decision: events.HookAllow, failed: true},
		{target: "hang", cause: "hook_failed", output: "did not answer within 1s and was killed", decision: events.HookDeny, failed: true},
		{target: "crash", cause: "hook_failed", output: "was killed by SIGSEGV", decision: events.HookDeny, failed: true},
		{target: "escape", runs: true, cause: "completed", decision: events.HookAllow},
		{target: "escape-off", runs: true, cause: "completed", decision: events.HookAllow},
		{target: "s1", runs: true, cause: "completed", decision: events.HookAllow},
		{target: "unhooked", runs: true, cause: "completed"},
	}
	var items []string
	for _, c := range calls {
		items = append(items, fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["touch",%q]}}`, c.target, c.target))
	}
	script := writeScript(t, `{"output":[`+strings.Join(items, ",")+`]}`, `{"output":[{"type":"message","content":"done"}]}`)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "on-request", "-s", "workspace-write",
		"--model-script", script, "--decisions", "denied", "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	recs := readJournal(t, sf.Path)
	for _, c := range calls {
		t.Run(c.target, func(t *testing.T) {
			_, err := os.Stat(filepath.Join(ws, c.target))
			if ran := err == nil; ran != c.runs {
				t.Errorf("ran = %v, want %v", ran, c.runs)
			}
			var last events.Transition
			var out events.ToolOutput
			var verdicts []events.HookVerdict
			for _, rec := range recs {
				if rec.CallID != c.target {
					continue
				}
				b, err := rec.Decode()
				if err != nil {
					t.Fatal(err)
				}
				switch v := b.(type) {
				case *events.Transition:
					last = *v
				case *events.ToolOutput:
					out = *v
				case *events.HookVerdict:
					verdicts = append(verdicts, *v)
				}
			}
			if last.Cause != c.cause {
				t.Errorf("last cause %q, want %q", last.Cause, c.cause)
			}
			if !strings.Contains(out.Output, c.output) {
				t.Errorf("the model was told %q, want it to contain %q", out.Output, c.output)
			}
			var pre []events.HookVerdict
			for _, v := range verdicts {
				if v.Stage == events.HookPreTool {
					pre = append(pre, v)
				}
			}
			if c.decision == "" {
				if len(verdicts) != 0 {
					t.Errorf("an unhooked call has verdicts %+v", verdicts)
				}
				return
			}
			if len(pre) != 1 || pre[0].Decision != c.decision || (pre[0].Error != "") != c.failed {
				t.Errorf("pre_tool verdicts %+v, want one %s (failed %v)", pre, c.decision, c.failed)
			}
		})
	}
	// The sandboxed hook could not write outside; the same hook without
	// the sandbox could (the attack works without the protection).
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a sandboxed hook wrote outside")
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped-unsandboxed")); err != nil {
		t.Errorf("the unsandboxed hook could not write: %v", err)
	}
	// The hung hook's whole process group was killed, its child too.
	if b, err := os.ReadFile(filepath.Join(outside, "hang.pid")); err != nil {
		t.Errorf("the hanging hook did not start: %v", err)
	} else if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		t.Errorf("hang.pid: %v", err)
	} else if alive(pid) {
		t.Errorf("the hanging hook's child %d outlived the time-out", pid)
	}
	// The audit shows every verdict.
	id := sessionIDs(t, home)[0]
	a := docket(t, nil, "audit", id, "--home", home)
	for _, want := range []string{"pre_tool  exit2.sh deny (sandbox read-only, exit 2", "FAILED did not answer within 1s", "post_tool post-note.sh deny"} {
		if !strings.Contains(a.stdout, want) {
			t.Errorf("the audit lacks %q:\n%s", want, a.stdout)
		}
	}
	// Replay feeds the verdicts back: with every hook script gone, the
	// session still verifies.
	if err := os.RemoveAll(hookDir); err != nil {
		t.Fatal(err)
	}
	if r := docket(t, nil, "replay", id, "--home", home); r.code != 0 || !strings.HasPrefix(r.stdout, "replay ok: ") {
		t.Fatalf("replay without the hooks: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var js struct {
		Calls []struct {
			CallID string `json:"call_id"`
			Hooks  []struct {
				Stage    string `json:"stage"`
				Decision string `json:"decision"`
			} `json:"hooks"`
		} `json:"calls"`
	}
	if r := docket(t, nil, "audit", id, "--home", home, "--json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &js) != nil {
		t.Fatalf("audit --json: exit %d\n%.400s", r.code, r.stdout)
	}
	found := false
	for _, c := range js.Calls {
		if c.CallID == "exit2" {
			found = len(c.Hooks) == 1 && c.Hooks[0].Stage == "pre_tool" && c.Hooks[0].Decision == "deny"
		}
	}
	if !found {
		t.Errorf("audit --json does not show exit2's deny verdict: %+v", js.Calls)
	}
	page := filepath.Join(t.TempDir(), "a.html")
	if r := docket(t, nil, "audit", id, "--home", home, "--html", page); r.code != 0 {
		t.Fatalf("audit --html: exit %d\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "pre_tool hook <code>exit2.sh</code>: <b>deny</b>") {
		t.Errorf("the HTML audit does not show exit2's verdict (%v)", err)
	}
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

// TestAHookAskUnderApprovalNeverIsADenial: a hook that asks for approval
// where nobody can be asked (approval policy never) stops the call.
func TestAHookAskUnderApprovalNeverIsADenial(t *testing.T) {
	t.Parallel()
	home, ws, hookDir := t.TempDir(), t.TempDir(), t.TempDir()
	s := hookScripts(t, hookDir, t.TempDir())
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf("[[hooks.pre_tool]]\ntool = \"*\"\ncommand = [%q]\n", s["json-ask"]))
	script := writeScript(t, `{"output":[{"type":"function_call","call_id":"a1","name":"shell","arguments":{"command":["touch","a1"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write",
		"--model-script", script, "--json", "--json-extensions", "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "a1")); err == nil {
		t.Fatal("the call ran although its hook asked and nobody could answer")
	}
	if !strings.Contains(r.stdout, `"cause":"hook_ask"`) {
		t.Errorf("no hook_ask transition:\n%s", r.stdout)
	}
}

// TestABadHookConfigNamesTheKey: a hook without a command, or with an
// unknown on_error, is refused before the session starts.
func TestABadHookConfigNamesTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, file, want string }{
		{"no command", "[[hooks.pre_tool]]\ntool = \"shell\"\n", "hooks.pre_tool.1.command"},
		{"bad on_error", "[[hooks.post_tool]]\ntool = \"shell\"\ncommand = [\"x\"]\non_error = \"maybe\"\n", "hooks.post_tool.1.on_error"},
		{"bad glob", "[[hooks.pre_tool]]\ntool = \"[\"\ncommand = [\"x\"]\n", "not a valid glob"},
		{"unknown key", "[[hooks.pre_tool]]\ntool = \"shell\"\ncommand = [\"x\"]\ntimeout = 3\n", "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, filepath.Join(home, "config.toml"), tc.file)
			r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", t.TempDir(), "--model-script", writeScript(t, `{"output":[]}`), "go")
			if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, stderr lacks %q:\n%s", r.code, tc.want, r.stderr)
			}
		})
	}
}

// TestAHookForcedApprovalIsTheWhyOfAnUnsandboxedRun: an allow rule lets a
// command run without the sandbox unasked; a hook's ask puts the user's
// approval in front of it, and the audit's why-line names the hook.
func TestAHookForcedApprovalIsTheWhyOfAnUnsandboxedRun(t *testing.T) {
	t.Parallel()
	home, ws, hookDir := t.TempDir(), t.TempDir(), t.TempDir()
	s := hookScripts(t, hookDir, t.TempDir())
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf("[[hooks.pre_tool]]\ntool = \"shell\"\ncommand = [%q]\n", s["json-ask"]))
	writeFile(t, filepath.Join(home, "rules", "default.rules"), `prefix_rule(pattern=["touch"], decision="allow")`+"\n")
	script := writeScript(t, `{"output":[{"type":"function_call","call_id":"r1","name":"shell","arguments":{"command":["touch","r1"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "on-request", "-s", "workspace-write",
		"--model-script", script, "--decisions", "approved", "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	a := docket(t, nil, "audit", sessionIDs(t, home)[0], "--home", home, "--unsandboxed")
	if !strings.Contains(a.stdout, "a pre_tool hook asked for approval (pre_tool hook json-ask.sh asks for approval: a person should look); user (--decisions) approved it at") {
		t.Fatalf("the why-line does not name the hook:\n%s", a.stdout)
	}
}
