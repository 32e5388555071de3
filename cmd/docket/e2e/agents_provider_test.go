package e2e

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAgentCLIAsModelProvider: model_provider = "agent:NAME" makes the
// agent CLI answer the turn; the answer is journaled as the model's
// response and verify replay matches without the CLI. A CLI that never
// answers fails the turn at its deadline (exit 1) and its process group
// is killed; a setsid daemon leaves the group and is not (documented).
func TestAgentCLIAsModelProvider(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	marker := fmt.Sprintf("docket-agent-provider-%d-%d", os.Getpid(), time.Now().UnixNano())
	agents := agentsConfig(t, home, marker)
	defer func() {
		for _, p := range processesWith(t, marker) {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	r := docket(t, nil, "exec", "--home", home, "-C", ws, "--skip-git-repo-check", "-c", `model_provider="agent:claude"`, "what is six times seven?")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "The answer is 42." {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	gone := agents + ".gone"
	if err := os.Rename(agents, gone); err != nil {
		t.Fatal(err)
	}
	r = docket(t, nil, "replay", "--home", home, "last")
	if err := os.Rename(gone, agents); err != nil {
		t.Fatal(err)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "replay ok") {
		t.Errorf("replay: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	r = docket(t, nil, "exec", "--home", home, "-C", ws, "--skip-git-repo-check", "-c", `model_provider="agent:hang"`, "what is six times seven?")
	// What was killed depends on what the machine gives: a cgroup where
	// docket can make one, else the process group (engine/model/agentcli).
	killed := regexp.MustCompile(`agent hang: no answer within 1s; (every process in its cgroup was killed \(cgroup-v[12]\)|its process group was killed)`)
	if r.code != 1 || !killed.MatchString(r.stderr) {
		t.Fatalf("hang: exit %d, want 1 naming the deadline\n%s", r.code, r.stderr)
	}
	for _, p := range []string{marker + "-self", marker + "-child"} {
		if !waitFor(func() bool { return len(processesWith(t, p)) == 0 }) {
			t.Errorf("%s survived the deadline: pids %v", p, processesWith(t, p))
		}
	}
}
