package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/docket-engine/docket/journal"
)

// TestWhatOutlivesAKilledDocketIsSaid kills docket with SIGKILL while a
// command it runs without the sandbox has started background children
// (one in its process group, one in a session of its own, as a daemon
// would) and waits for them: an unsandboxed command, a command retried
// without the sandbox after approval, and an unsandboxed hook. The
// command itself dies with docket (its parent-death signal); its
// background children do not, as docs/sandbox.md and docs/decisions.md
// say, and the audit of the session says so for the interrupted call
// instead of a bare "no outcome recorded". With the lifeline turned off
// (the docketfault build's DOCKET_FAULT_NO_LIFELINE=1) the command itself
// outlives docket too.
func TestWhatOutlivesAKilledDocketIsSaid(t *testing.T) {
	for _, shape := range []string{"unsandboxed", "approved retry", "unsandboxed hook"} {
		for _, noLifeline := range []bool{false, true} {
			name := shape
			if noLifeline {
				name = "without the lifeline, " + shape
			}
			t.Run(name, func(t *testing.T) { backgroundChildren(t, shape, noLifeline) })
		}
	}
}

func backgroundChildren(t *testing.T, shape string, noLifeline bool) {
	home, ws := t.TempDir(), t.TempDir()
	outside, err := os.MkdirTemp("/var/tmp", "docket-children-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	token := randomToken(t)
	gate, marker, started := filepath.Join(outside, "go"), filepath.Join(outside, "marker"), filepath.Join(outside, "started")
	child := fmt.Sprintf(`while [ ! -e %s ]; do sleep 0.05; done; echo late >> %s`, gate, marker)
	// Two children, one of them in a session of its own; the leader
	// waits for the first so that it is alive when docket is killed.
	leaderTok := "leader-" + token
	body := fmt.Sprintf(`: %s; bash -c ': %s; %s' & setsid bash -c ': %s; %s' & echo up > %s; wait`, leaderTok, token, child, token, child, started)
	release := func() {
		if err := os.WriteFile(gate, nil, 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(release)

	args := []string{"exec", "--skip-git-repo-check", "--home", home, "-C", ws}
	var call string
	switch shape {
	case "unsandboxed":
		args = append(args, "-a", "never", "-s", "danger-full-access")
		call = body
	case "approved retry":
		// Denied in the sandbox (it writes outside the workspace first),
		// then approved and run again without it.
		args = append(args, "-a", "on-failure", "-s", "workspace-write", "--decisions", "approved")
		call = fmt.Sprintf(`echo x > %s/probe || exit 1; %s`, outside, body)
	case "unsandboxed hook":
		hook := filepath.Join(outside, leaderTok+".sh")
		writeFile(t, hook, "#!/bin/bash\ncat >/dev/null\n"+body+"\n")
		if err := os.Chmod(hook, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf(
			"[[hooks.pre_tool]]\ntool = \"shell\"\nargv_prefix = [\"true\"]\ncommand = [%q]\nsandbox = false\ntimeout_sec = 600\n", hook))
		args = append(args, "-a", "never", "-s", "workspace-write")
		call = "true"
	}
	line := fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c",%q],"timeout_ms":600000}}]}`, call)
	if shape == "unsandboxed hook" {
		line = `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["true"]}}]}`
	}
	script := writeScript(t, line, `{"output":[{"type":"message","content":"done"}]}`)
	cmd := exec.Command(faultBin, append(args, "--model-script", script, "go")...)
	cmd.Env = append(os.Environ(), "DOCKET_CRASH_AT=")
	if noLifeline {
		cmd.Env = append(cmd.Env, "DOCKET_FAULT_NO_LIFELINE=1")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { _, err := os.Stat(started); return err == nil }) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the command never started; docket said:\n%s", stderr.String())
	}
	var leaders []string
	children := func() []string {
		var out []string
		for _, p := range processesWith(t, token) {
			if !slices.Contains(leaders, p) {
				out = append(out, p)
			}
		}
		return out
	}
	// A child between fork and exec still shows the leader's command line.
	if !waitFor(func() bool { leaders = processesWith(t, leaderTok); return len(leaders) == 1 && len(children()) >= 2 }) {
		t.Fatalf("leader %v and children %v in /proc, want one and two: the test cannot tell whether they die", leaders, children())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error says so
	// Asked at once: the next docket started in the same cgroup (on a
	// busy machine, soon) sweeps what a killed docket left.
	if len(children()) == 0 {
		t.Fatal("the background children are gone at once: the documented leftover is not there (or a sweep came first)")
	}
	if !noLifeline {
		// The command itself dies with docket (its parent-death signal).
		if !waitFor(func() bool { return exited(leaders[0]) }) {
			t.Fatalf("the command %s outlived docket", leaders[0])
		}
	} else if exited(leaders[0]) {
		t.Fatal("without the lifeline the command itself should outlive docket")
	}
	release()
	waitFor(func() bool { return len(processesWith(t, token)) == 0 })
	if shape == "unsandboxed hook" {
		return // a hook's run is not an attempt of the call: the docs say it
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	r := docket(t, nil, "audit", "--home", home, sf.ID)
	if want := "processes it started in the background may have outlived docket"; !strings.Contains(r.stdout, want) {
		t.Errorf("the audit of the killed session does not say what may have outlived docket (%q):\n%s", want, r.stdout)
	}
}

// exited reports whether pid is gone or a zombie: it has finished exiting.
func exited(pid string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	// The state follows the command name's closing parenthesis.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}
