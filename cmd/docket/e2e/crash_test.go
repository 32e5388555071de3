package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/journal/journaltest"
	"github.com/docket-engine/docket/replay"
)

// crashScript is a session with a sandboxed call, a sandbox denial retried
// without the sandbox, and a call that is still running when it may be
// killed. Each command appends "<call> <sandbox>" to runs.log, so a command
// that ran twice shows up twice.
func crashScript(outside string) string {
	sh := func(id, cmd string) string {
		return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["bash","-c",%q]}}]}`, id, cmd)
	}
	return strings.Join([]string{
		sh("c1", `echo "c1 ${DOCKET_SANDBOX:-none}" >> runs.log`),
		sh("c2", `echo "c2 ${DOCKET_SANDBOX:-none}" >> runs.log; echo x > `+outside+`/x`),
		sh("c3", `echo started; sleep 0.3; echo "c3 ${DOCKET_SANDBOX:-none}" >> runs.log`),
		`{"output":[{"type":"message","content":"all done"}]}`,
	}, "\n") + "\n"
}

type crashRun struct {
	home, ws, outside, script string
}

func newCrashRun(t *testing.T) *crashRun {
	c := &crashRun{home: t.TempDir(), ws: t.TempDir()}
	out, err := os.MkdirTemp("/var/tmp", "docket-crash-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	c.outside = out
	c.script = filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(c.script, []byte(crashScript(out)), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// exec runs the session with the fault-hook binary, armed to die at crashAt.
func (c *crashRun) exec(t *testing.T, crashAt string) result {
	env := []string{"DOCKET_CRASH_AT=" + crashAt}
	return run(t, faultBin, env, "exec", "--skip-git-repo-check", "--home", c.home, "-C", c.ws, "-a", "on-failure", "-s", "workspace-write",
		"--model-script", c.script, "--decisions", "approved,approved,approved", "go")
}

// resume continues the session with the production binary, as a user would.
func (c *crashRun) resume(t *testing.T) result {
	return docket(t, []string{"DOCKET_CRASH_AT="}, "resume", "--last", "--all", "--home", c.home, "--model-script", c.script,
		"--decisions", "approved,approved,approved")
}

func (c *crashRun) journalPath(t *testing.T) string {
	sf, err := journal.Find(c.home, "last")
	if err != nil {
		t.Fatal(err)
	}
	return sf.Path
}

// crashPoints runs the session once cleanly with DOCKET_FAULT_LOG and
// returns every point it passed, numbered by occurrence: killing at each
// of them covers every transition kind and every durable commit.
func crashPoints(t *testing.T) []string {
	c := newCrashRun(t)
	logFile := filepath.Join(t.TempDir(), "points.log")
	r := run(t, faultBin, []string{"DOCKET_FAULT_LOG=" + logFile}, "exec", "--skip-git-repo-check", "--home", c.home, "-C", c.ws, "-a", "on-failure",
		"-s", "workspace-write", "--model-script", c.script, "--decisions", "approved,approved,approved", "go")
	if r.code != 0 {
		t.Fatalf("clean run exited %d:\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var pts []string
	for _, p := range strings.Fields(string(b)) {
		seen[p]++
		pts = append(pts, fmt.Sprintf("%s@%d", p, seen[p]))
	}
	for _, must := range []string{"after:run_sandboxed@1", "after:sandbox_denied@1", "after:ask@1", "after:run_unsandboxed@1",
		"after:finish@1", "before_commit@1", "after_commit@1", "while_running@1", "sending_request@1"} {
		if seen[strings.Split(must, "@")[0]] == 0 {
			t.Fatalf("the clean run never passed %s; the scenario no longer covers it", must)
		}
	}
	return pts
}

func TestKilledSessionsResumeWithoutLossOrRepeats(t *testing.T) {
	t.Parallel()
	for _, point := range crashPoints(t) {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			c := newCrashRun(t)
			first := c.exec(t, point)
			if !first.signaled {
				t.Fatalf("exec was not killed at %s (exit %d):\n%s", point, first.code, first.stderr)
			}
			path := c.journalPath(t)
			before, err := journaltest.OnDisk(path)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond) // let an orphaned command finish its write
			if len(before) == 0 {
				// Killed before the first commit: nothing may have run, and
				// resume says why it cannot go on.
				if b, _ := os.ReadFile(filepath.Join(c.ws, "runs.log")); len(b) > 0 {
					t.Fatalf("commands ran before anything was journaled: %s", b)
				}
				r := c.resume(t)
				if r.code != 1 || !strings.Contains(r.stderr, "nothing ran") {
					t.Fatalf("resume of an empty journal: exit %d, %s", r.code, r.stderr)
				}
				return
			}
			var last result
			for i := 0; i < 3; i++ {
				last = c.resume(t)
				if last.code == 0 {
					break
				}
			}
			if last.code != 0 {
				t.Fatalf("resume exited %d:\n%s", last.code, last.stderr)
			}
			after := readJournal(t, path)
			checkPrefix(t, before, after)
			checkNoRepeats(t, c.ws, after)
			checkEveryCallDone(t, after)
			if _, err := replay.VerifyFile(context.Background(), path, replay.Options{}); err != nil {
				t.Fatalf("the resumed journal does not verify-replay: %v", err)
			}
		})
	}
}

func readJournal(t *testing.T, path string) []events.Record {
	t.Helper()
	var recs []events.Record
	if err := journal.Scan(path, 1, func(r events.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

// checkPrefix: nothing committed before the kill is lost or changed.
func checkPrefix(t *testing.T, before, after []events.Record) {
	t.Helper()
	if len(after) < len(before) {
		t.Fatalf("journal shrank from %d to %d records", len(before), len(after))
	}
	for i, r := range before {
		a, _ := after[i].Marshal()
		b, _ := r.Marshal()
		if string(a) != string(b) {
			t.Fatalf("committed record %d changed after resume", r.Seq)
		}
	}
}

// checkNoRepeats: no command ran twice, and every run had its durable
// write-ahead record with the sandbox it ran under.
func checkNoRepeats(t *testing.T, ws string, recs []events.Record) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(ws, "runs.log"))
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		if seen[line] {
			t.Fatalf("%q ran twice (runs.log:\n%s)", line, b)
		}
		seen[line] = true
		f := strings.Fields(line)
		if !hasStart(recs, f[0], f[1] == "linux") {
			t.Fatalf("%q ran without an exec_started record for that sandbox", line)
		}
	}
}

func hasStart(recs []events.Record, call string, sandboxed bool) bool {
	for _, r := range recs {
		if r.Kind != events.KindExecStarted || r.CallID != call {
			continue
		}
		b, _ := r.Decode()
		if b.(*events.ExecStarted).Sandbox.Sandboxed() == sandboxed {
			return true
		}
	}
	return false
}

// checkEveryCallDone: every call ended in done with an output for the model.
func checkEveryCallDone(t *testing.T, recs []events.Record) {
	t.Helper()
	last := map[string]string{}
	outputs := map[string]bool{}
	for _, r := range recs {
		b, _ := r.Decode()
		switch v := b.(type) {
		case *events.Transition:
			last[v.CallID] = v.To
		case *events.ToolOutput:
			outputs[v.CallID] = true
		}
	}
	for call, st := range last {
		if st != "done" || !outputs[call] {
			t.Fatalf("call %s ended in %s (output recorded: %v)", call, st, outputs[call])
		}
	}
}
