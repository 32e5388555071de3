package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/sandbox/proctree"
)

// standins copies the agent stand-ins of testdata/agents into a directory
// of the test's own and returns it, so a test can take them away (to show
// replay runs none) without touching the checkout.
func standins(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agents")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"claude", "gemini-fail", "hang", "plain"} {
		b, err := os.ReadFile(filepath.Join("testdata", "agents", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// agentsReport is the part of `docket agents run --json` the tests read.
type agentsReport struct {
	SessionID string `json:"session_id"`
	Quorum    int    `json:"quorum"`
	Finished  int    `json:"finished"`
	Valid     bool   `json:"valid"`
	Agents    []struct {
		Agent  string `json:"agent"`
		Status string `json:"status"`
		Answer string `json:"answer"`
		Error  string `json:"error"`
	} `json:"agents"`
	Groups    [][]string `json:"groups"`
	Synthesis string     `json:"synthesis"`
	Error     string     `json:"error"`
}

func (r agentsReport) statuses() string {
	var out []string
	for _, a := range r.Agents {
		out = append(out, a.Agent+"="+a.Status)
	}
	return strings.Join(out, " ")
}

// agentsConfig writes a config.toml with the stand-in agents: claude
// (stream-json, needs its key from its own env), plain (text), gemini
// (fails), hang (never answers; deadline 1 s; marker in its children).
func agentsConfig(t *testing.T, home, marker string) (dir string) {
	t.Helper()
	dir = standins(t)
	// /tmp is left out of the writable roots: the test binary lives there,
	// and concurrent sandboxed calls race on the placeholder that guards
	// its absent lean helper (docs/decisions.md, "External agent CLIs").
	cfg := fmt.Sprintf(`
[sandbox_workspace_write]
exclude_slash_tmp = true
exclude_tmpdir_env_var = true

[agents.claude]
command = %q
args = ["-p", "{prompt}", "--output-format", "stream-json"]
format = "stream-json"
timeout_sec = 120
env = { CLAUDE_STANDIN_API_KEY = "sk-standin-secret-value", STANDIN_ANSWER = "The answer is 42." }

[agents.plain]
command = %q
format = "text"
timeout_sec = 120
env = { STANDIN_ANSWER = "the answer is 42" }

[agents.gemini]
command = %q
args = ["-p", "{prompt}", "--output-format", "stream-json"]
format = "stream-json"
timeout_sec = 120

[agents.hang]
command = %q
args = ["{prompt}", %q]
format = "stream-json"
timeout_sec = 1
`, filepath.Join(dir, "claude"), filepath.Join(dir, "plain"), filepath.Join(dir, "gemini-fail"), filepath.Join(dir, "hang"), marker)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHangStandinLeavesProcessesWithoutDocket shows the hang stand-in's
// child and setsid daemon outlive a kill of its process group when no
// sandbox holds them: the /proc scan the consensus test relies on does see
// them, and killing the group alone would not be enough.
func TestHangStandinLeavesProcessesWithoutDocket(t *testing.T) {
	t.Parallel()
	marker := fmt.Sprintf("docket-agents-bare-%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd := exec.Command(filepath.Join(standins(t), "hang"), "prompt", marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// No pipes: the daemon would hold them open and Wait would not return.
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, p := range processesWith(t, marker) {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	// Both must be in place: the daemon only leaves the group once setsid
	// has made its session, which can come after the last process starts.
	if !waitFor(func() bool { return len(processesWith(t, marker+"-self")) > 0 && inOwnSession(t, marker+"-daemon") }) {
		t.Fatal("the stand-in never started its last process and its daemon")
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	left := processesWith(t, marker)
	if len(left) == 0 {
		t.Fatal("after killing the process group nothing of the stand-in is left: the daemon should have escaped it")
	}
	if len(processesWith(t, marker+"-daemon")) == 0 {
		t.Errorf("the daemon did not outlive its group; left: %v", left)
	}
}

// TestAgentsRunConsensusWithAFailingAndAHangingAgent is the issue's
// required case: four agents, one fails, one hangs and is killed at its
// deadline with everything it started; two finish, so quorum 2 is met and
// the consensus is valid, with the scripted model's synthesis; quorum 3 is
// not, and docket exits 1 naming the failed agents and why. Both sessions
// audit and verify-replay, and replay runs no agent.
func TestAgentsRunConsensusWithAFailingAndAHangingAgent(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	marker := fmt.Sprintf("docket-agents-hang-%d-%d", os.Getpid(), time.Now().UnixNano())
	agents := agentsConfig(t, home, marker)
	script := writeScript(t, `{"output":[{"type":"message","content":"Synthesis: claude and plain agree on 42."}]}`)
	run := func(quorum string) (result, agentsReport) {
		r := docket(t, nil, "agents", "run", "--home", home, "-C", ws, "--skip-git-repo-check", "-s", "workspace-write",
			"-a", "on-request", "--model-script", script, "--quorum", quorum, "--json", "what is six times seven?")
		var rep agentsReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("quorum %s: exit %d, stdout is not the report: %v\n%s\n%s", quorum, r.code, err, r.stdout, r.stderr)
		}
		return r, rep
	}

	r, rep := run("2")
	if r.code != 0 {
		t.Fatalf("quorum 2: exit %d, want 0\n%s", r.code, r.stderr)
	}
	if got, want := rep.statuses(), "claude=finished gemini=failed hang=timed_out plain=finished"; got != want {
		t.Errorf("statuses %q, want %q", got, want)
	}
	if !rep.Valid || rep.Finished != 2 || rep.Quorum != 2 {
		t.Errorf("valid %v, finished %d, quorum %d; want valid, 2, 2", rep.Valid, rep.Finished, rep.Quorum)
	}
	if rep.Synthesis != "Synthesis: claude and plain agree on 42." {
		t.Errorf("synthesis %q", rep.Synthesis)
	}
	if len(rep.Groups) != 1 || strings.Join(rep.Groups[0], ",") != "claude,plain" {
		t.Errorf("groups %v, want claude and plain agreeing", rep.Groups)
	}
	for _, a := range rep.Agents {
		switch a.Agent {
		case "claude":
			if a.Answer != "The answer is 42." {
				t.Errorf("claude's answer %q: its own env (the key, the answer) did not reach it", a.Answer)
			}
		case "gemini":
			if !strings.Contains(a.Error, "Quota exceeded") {
				t.Errorf("gemini's failure does not say why: %q", a.Error)
			}
		case "hang":
			if !strings.Contains(a.Error, "deadline") {
				t.Errorf("hang's failure does not name the deadline: %q", a.Error)
			}
		}
	}
	if !waitFor(func() bool { return len(processesWith(t, marker)) == 0 }) {
		t.Errorf("processes of the hanging agent survived its deadline: pids %v", processesWith(t, marker))
	}
	sf, err := journal.Find(home, rep.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(sf.Path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("sk-standin-secret-value")) {
		t.Error("the journal holds the value of an agent's env (a credential)")
	}
	checkAgentsAudit(t, home, rep.SessionID)

	// The same consensus for people: side by side, agreement, synthesis.
	r = docket(t, nil, "agents", "run", "--home", home, "-C", ws, "--skip-git-repo-check", "-s", "workspace-write",
		"--model-script", script, "--quorum", "2", "what is six times seven?")
	for _, want := range []string{"Consensus valid: 2 of 4 agents finished (quorum 2)", "== claude: finished\nThe answer is 42.",
		"== gemini: failed: exit code 1: the agent reported an error: Quota exceeded", "== hang: timed out: no answer before its deadline",
		"Agreement: claude, plain agree.", "Synthesis:\nSynthesis: claude and plain agree on 42."} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("human output: exit %d, stdout lacks %q:\n%s", r.code, want, r.stdout)
		}
	}

	r, rep = run("3")
	if r.code != 1 {
		t.Fatalf("quorum 3: exit %d, want 1\n%s", r.code, r.stderr)
	}
	if rep.Valid || rep.Synthesis != "" {
		t.Errorf("quorum 3: valid %v, synthesis %q; want not valid, none", rep.Valid, rep.Synthesis)
	}
	for _, want := range []string{"2 of 4 agents finished, 3 needed", "gemini failed", "Quota exceeded", "hang timed out", "deadline"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("quorum 3: stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	if !waitFor(func() bool { return len(processesWith(t, marker)) == 0 }) {
		t.Errorf("processes of the hanging agent survived its deadline: pids %v", processesWith(t, marker))
	}

	// Verify replay feeds the recorded outputs back: with the agents gone
	// from the disk it still matches every decision and input.
	if err := os.RemoveAll(agents); err != nil {
		t.Fatal(err)
	}
	r = docket(t, nil, "replay", "--home", home, rep.SessionID)
	if r.code != 0 || !strings.Contains(r.stdout, "replay ok") {
		t.Errorf("replay with the agents gone: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	checkAgentsAudit(t, home, rep.SessionID)
}

// checkAgentsAudit checks the audit names each agent's call, its tool and
// outcome, and that a verify replay of the session matches.
func checkAgentsAudit(t *testing.T, home, id string) {
	t.Helper()
	r := docket(t, nil, "audit", "--home", home, id, "--json")
	if r.code != 0 {
		t.Fatalf("audit: exit %d\n%s", r.code, r.stderr)
	}
	var a struct {
		Calls []struct {
			CallID   string `json:"call_id"`
			Tool     string `json:"tool"`
			Outcome  string `json:"outcome"`
			Attempts []struct {
				TimedOut bool `json:"timed_out"`
			} `json:"attempts"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil {
		t.Fatalf("audit json: %v\n%s", err, r.stdout)
	}
	var got []string
	for _, c := range a.Calls {
		line := c.CallID + " " + c.Tool + " " + c.Outcome
		if len(c.Attempts) == 1 && c.Attempts[0].TimedOut {
			line += " timed out"
		}
		got = append(got, line)
	}
	for _, want := range []string{"agents-claude run_agent completed", "agents-gemini run_agent failed", "agents-hang run_agent failed timed out", "agents-plain run_agent completed"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("audit calls lack %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
	r = docket(t, nil, "replay", "--home", home, id)
	if r.code != 0 || !strings.Contains(r.stdout, "replay ok") {
		t.Errorf("replay: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestAgentsRunRefusesBadConfigAndFlags: each mistake is exit 2 with a
// message naming the key or flag.
func TestAgentsRunRefusesBadConfigAndFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config string
		args         []string
		want         []string
	}{
		{"unknown format", "[agents.a]\ncommand = \"x\"\nformat = \"jsonl\"\n", nil, []string{"agents.a.format", `"jsonl"`, "stream-json"}},
		{"no command", "[agents.a]\nformat = \"text\"\n", nil, []string{"agents.a.command", "missing"}},
		{"negative timeout", "[agents.a]\ncommand = \"x\"\ntimeout_sec = -1\n", nil, []string{"agents.a.timeout_sec"}},
		{"bad name", "[agents.\"a b\"]\ncommand = \"x\"\n", nil, []string{"not an agent name"}},
		{"unknown key", "[agents.a]\ncommand = \"x\"\ntimeout = 3\n", nil, []string{"agents.a.timeout"}},
		{"unknown agent", "[agents.claude]\ncommand = \"x\"\n", []string{"--agents", "claud"}, []string{`"claud"`, `did you mean "claude"`}},
		{"quorum too high", "[agents.a]\ncommand = \"x\"\n", []string{"--quorum", "2"}, []string{"--quorum 2", "1 to 1"}},
		{"no agents", "", nil, []string{"no agents are configured"}},
		{"agent provider unknown", "model_provider = \"agent:b\"\n[agents.a]\ncommand = \"x\"\n", nil, []string{"model_provider", `agent "b" is not configured`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"agents", "run", "--home", home, "-C", ws, "--skip-git-repo-check"}, tc.args...)
			if !strings.Contains(tc.config, "model_provider") {
				args = append(args, "--model-script", writeScript(t, `{"output":[{"type":"message","content":"x"}]}`))
			}
			r := docket(t, nil, append(args, "prompt")...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// TestAgentsRunAsksApprovalParksAndResumes: under -a untrusted each agent's
// command line needs approval; with nobody to ask the session parks (exit
// 3) having run no agent; docket resume with --decisions runs them and the
// synthesis comes; the two-process session verify-replays. The recorded
// quorum applies to a resumed run too.
func TestAgentsRunAsksApprovalParksAndResumes(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	agentsConfig(t, home, fmt.Sprintf("docket-agents-park-%d", os.Getpid()))
	script := writeScript(t, `{"output":[{"type":"message","content":"Synthesis after resume."}]}`)
	r := docket(t, nil, "agents", "run", "--home", home, "-C", ws, "--skip-git-repo-check", "-a", "untrusted",
		"--agents", "claude,plain", "--model-script", script, "what is six times seven?")
	if r.code != 3 || !strings.Contains(r.stderr, "waiting for a decision on call agents-claude") {
		t.Fatalf("exit %d, want 3 (parked on agents-claude)\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "The answer is 42") {
		t.Fatalf("an agent ran before it was approved:\n%s", r.stderr)
	}
	r = docket(t, nil, "resume", "--home", home, "last", "--decisions", "approved,approved", "--model-script", script)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Synthesis after resume." {
		t.Fatalf("resume: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	r = docket(t, nil, "audit", "--home", home, "last")
	if r.code != 0 || strings.Count(r.stdout, "approved") < 2 {
		t.Errorf("audit does not show both approvals: exit %d\n%s", r.code, r.stdout)
	}
	r = docket(t, nil, "replay", "--home", home, "last")
	if r.code != 0 || !strings.Contains(r.stdout, "replay ok") {
		t.Errorf("replay: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// The recorded quorum still decides after a resume: gemini fails, 1 of
	// 2 is not 2, so no synthesis is asked for and the resume exits 1.
	r = docket(t, nil, "agents", "run", "--home", home, "-C", ws, "--skip-git-repo-check", "-a", "untrusted",
		"--agents", "claude,gemini", "--quorum", "2", "--model-script", script, "what is six times seven?")
	if r.code != 3 {
		t.Fatalf("second run: exit %d, want 3\n%s", r.code, r.stderr)
	}
	r = docket(t, nil, "resume", "--home", home, "last", "--decisions", "approved,approved", "--model-script", script)
	if r.code != 1 || !strings.Contains(r.stderr, "consensus not valid: quorum not met: 1 of 2 agents finished, 2 needed; gemini failed") ||
		strings.Contains(r.stdout, "Synthesis after resume.") {
		t.Fatalf("resume below quorum: exit %d, want 1 naming gemini, no synthesis\nstdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	r = docket(t, nil, "replay", "--home", home, "last")
	if r.code != 0 || !strings.Contains(r.stdout, "replay ok") {
		t.Errorf("replay: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestAgentsRunUnsandboxedKillsEverythingItStarted: with -s
// danger-full-access an agent's deadline kills its process group (its
// child goes with it) and, where docket can make a cgroup for the call
// (sandbox/proctree), the setsid daemon that left the group too
// (TestHangStandinLeavesProcessesWithoutDocket shows it escapes the group).
func TestAgentsRunUnsandboxedKillsEverythingItStarted(t *testing.T) {
	t.Parallel()
	probe := proctree.New(proctree.Options{})
	mech := probe.Mechanism()
	if err := probe.Close(); err != nil {
		t.Fatal(err)
	}
	home, ws := t.TempDir(), t.TempDir()
	marker := fmt.Sprintf("docket-agents-unsandboxed-%d-%d", os.Getpid(), time.Now().UnixNano())
	agentsConfig(t, home, marker)
	defer func() {
		for _, p := range processesWith(t, marker) {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	r := docket(t, nil, "agents", "run", "--home", home, "-C", ws, "--skip-git-repo-check", "-s", "danger-full-access",
		"--agents", "hang", "--model-script", writeScript(t), "--json", "q")
	if r.code != 1 || !strings.Contains(r.stderr, "hang timed out") {
		t.Fatalf("exit %d, want 1 with hang timed out\n%s", r.code, r.stderr)
	}
	for _, p := range []string{marker + "-self", marker + "-child"} {
		if !waitFor(func() bool { return len(processesWith(t, p)) == 0 }) {
			t.Errorf("%s survived the deadline: pids %v", p, processesWith(t, p))
		}
	}
	// The audit says what held, and no more.
	if a := docket(t, nil, "audit", "--home", home, "last"); a.code != 0 || !strings.Contains(a.stdout, "NO SANDBOX ("+mech.Layer()+", which ") {
		t.Errorf("audit: exit %d, want the run's layer %s\n%s\n%s", a.code, mech.Layer(), a.stdout, a.stderr)
	}
	if mech == proctree.ProcessGroup {
		t.Logf("no cgroup docket may use here: the daemon is out of reach of the process group")
		return
	}
	if !waitFor(func() bool { return len(processesWith(t, marker+"-daemon")) == 0 }) {
		t.Errorf("the setsid daemon survived the deadline (%s): pids %v", mech, processesWith(t, marker+"-daemon"))
	}
}

// inOwnSession reports whether a process with token in its command line
// leads a session of its own (setsid has run).
func inOwnSession(t *testing.T, token string) bool {
	for _, p := range processesWith(t, token) {
		b, err := os.ReadFile(filepath.Join("/proc", p, "stat"))
		if err != nil {
			continue
		}
		// Fields after the command name, which ends at the last ')':
		// state, ppid, pgrp, session.
		i := strings.LastIndexByte(string(b), ')')
		if f := strings.Fields(string(b)[i+1:]); i >= 0 && len(f) > 3 && f[3] == p {
			return true
		}
	}
	return false
}
