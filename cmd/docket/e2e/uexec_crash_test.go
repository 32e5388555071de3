package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/journal/journaltest"
	"github.com/docket-engine/docket/replay"
)

// uexecCrashScript: a tty process started, written to, ended by ^D, and a
// second command; each command appends "<call> <sandbox>" to runs.log.
func uexecCrashScript() string {
	mark := func(id string) string { return `echo \"` + id + ` ${DOCKET_SANDBOX:-none}\" >> runs.log` }
	return strings.Join([]string{
		execCall("c1", `{"cmd":"`+mark("c1")+`; cat","tty":true,"yield_time_ms":250}`),
		writeCall("c2", `{"session_id":1000,"chars":"hello\n","yield_time_ms":250}`),
		writeCall("c3", `{"session_id":1000,"chars":"\u0004","yield_time_ms":5000}`),
		execCall("c4", `{"cmd":"`+mark("c4")+`","yield_time_ms":5000}`),
		doneMsg,
	}, "\n") + "\n"
}

// TestKilledAtEveryPointDuringUnifiedExec kills docket at every fault
// point a clean run of the unified exec session passes, resumes, and
// checks the crash tests' invariants: nothing committed is lost, no
// command ran twice, every call reached done with an output, and the
// journal verify-replays.
func TestKilledAtEveryPointDuringUnifiedExec(t *testing.T) {
	setup := func(t *testing.T) (home, ws, script string) {
		home, ws = t.TempDir(), t.TempDir()
		script = filepath.Join(t.TempDir(), "script.jsonl")
		if err := os.WriteFile(script, []byte(uexecCrashScript()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	exec := func(t *testing.T, home, ws, script string, env ...string) result {
		return run(t, faultBin, env, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "workspace-write", "--model-script", script, "go")
	}
	home, ws, script := setup(t)
	logFile := filepath.Join(t.TempDir(), "points.log")
	if r := exec(t, home, ws, script, "DOCKET_FAULT_LOG="+logFile); r.code != 0 {
		t.Fatalf("clean run exited %d:\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var points []string
	for _, p := range strings.Fields(string(b)) {
		seen[p]++
		points = append(points, fmt.Sprintf("%s@%d", p, seen[p]))
	}
	// (exec_command streams nothing while it polls, so no while_running.)
	if seen["after:run_sandboxed"] < 4 || seen["after:finish"] < 4 {
		t.Fatalf("the clean run passed too few points to cover the calls: %v", points)
	}
	for _, point := range points {
		t.Run(point, func(t *testing.T) {
			home, ws, script := setup(t)
			first := exec(t, home, ws, script, "DOCKET_CRASH_AT="+point)
			if !first.signaled {
				t.Fatalf("exec was not killed at %s (exit %d):\n%s", point, first.code, first.stderr)
			}
			sf, err := journal.Find(home, "last")
			if err != nil {
				t.Fatal(err)
			}
			before, err := journaltest.OnDisk(sf.Path)
			if err != nil {
				t.Fatal(err)
			}
			if len(before) == 0 {
				if b, _ := os.ReadFile(filepath.Join(ws, "runs.log")); len(b) > 0 {
					t.Fatalf("commands ran before anything was journaled: %s", b)
				}
				return
			}
			time.Sleep(300 * time.Millisecond) // a process that outlived the kill would write now
			r := docket(t, []string{"DOCKET_CRASH_AT="}, "resume", "--last", "--all", "--home", home, "--model-script", script)
			if r.code != 0 {
				t.Fatalf("resume exited %d:\n%s", r.code, r.stderr)
			}
			after := readJournal(t, sf.Path)
			checkPrefix(t, before, after)
			checkNoRepeats(t, ws, after)
			checkEveryCallDone(t, after)
			if _, err := replay.VerifyFile(context.Background(), sf.Path, replay.Options{}); err != nil {
				t.Fatalf("the resumed journal does not verify-replay: %v", err)
			}
		})
	}
}
