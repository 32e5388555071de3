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
)

// TestBackgroundChildrenDieWithDocket kills docket with SIGKILL while a
// command that docket runs without the sandbox has started background
// children (one in its process group, one in a session of its own, as a
// daemon would) and waits for them: an unsandboxed command, a command
// retried without the sandbox after approval, and an unsandboxed hook.
// None of the children may run on or write after docket is gone. Each
// child waits for a file the test creates only after docket is dead, so
// the outcome does not depend on timing. The same run with the lifeline
// turned off (the docketfault build's DOCKET_FAULT_NO_LIFELINE=1) shows the
// children outliving docket and writing after the crash, so the test can
// tell.
func TestBackgroundChildrenDieWithDocket(t *testing.T) {
	if os.Geteuid() != 0 {
		// Without CAP_SYS_ADMIN an unsandboxed run gets no PID namespace,
		// and the audit says its background processes may outlive docket
		// (dies-with-docket:leader-only): nothing here to hold.
		t.Skip("needs CAP_SYS_ADMIN for an unsandboxed run's PID namespace; the leader-only case is reported, not promised")
	}
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
	if noLifeline {
		// Asked at once: the next docket started in the same cgroup (on
		// a busy machine, soon) sweeps what a killed docket left.
		if len(children()) == 0 {
			t.Fatal("without the lifeline the children should outlive docket, but they are gone")
		}
		release()
		if !waitFor(func() bool { b, _ := os.ReadFile(marker); return strings.Count(string(b), "late") == 2 }) {
			t.Fatal("without the lifeline both children should have written after the crash")
		}
		waitFor(func() bool { return len(processesWith(t, token)) == 0 })
		return
	}
	// The leader dies with docket (its parent-death signal). Once it has
	// exited, the members of its PID namespace are gone too: the kernel
	// kills them before their init finishes exiting. Asked at once, so
	// that another docket's sweep of stale cgroups cannot pass for ours.
	if !waitFor(func() bool { return exited(leaders[0]) }) {
		t.Fatalf("the leader %s outlived docket", leaders[0])
	}
	left := children()
	if len(left) != 0 {
		t.Fatalf("processes outlived docket: pids %v still run", left)
	}
	release()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		b, _ := os.ReadFile(marker)
		t.Fatalf("a child wrote after docket was killed: %q (%v)", b, err)
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
