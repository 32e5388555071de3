package replay_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/docket-engine/docket/states/policy"
)

func TestLiveReplayRunsTheCommandsAgainAndReportsDrift(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "data.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mdl, err := script.Parse("live", []byte(line(plainShell("c1", "cat data.txt"))+"\n"+line(plainShell("c2", "echo fixed"))+"\n"+finalMsg))
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	mode, _ := policy.ParseSandboxMode("workspace-write")
	j, err := journal.Create(home, "live", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Start(engine.Config{SessionID: "live", Cwd: ws,
		Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, ws, "", false), Model: mdl,
		Approver: flags(), Runner: &engine.ProcessRunner{HelperPath: exe},
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Turn(context.Background(), "read it"); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	rep, err := replay.Live(context.Background(), j.Path(), replay.LiveOptions{HelperPath: exe})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Drifted() || rep.Calls != 2 {
		t.Fatalf("an unchanged workspace drifted: %+v", rep)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "data.txt")); string(b) != "one\n" {
		t.Fatal("live replay touched the real workspace")
	}

	if err := os.WriteFile(filepath.Join(ws, "data.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = replay.Live(context.Background(), j.Path(), replay.LiveOptions{HelperPath: exe})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Drift) != 1 || rep.Drift[0].CallID != "c1" || !strings.Contains(rep.Drift[0].Recorded, "one") || !strings.Contains(rep.Drift[0].Now, "two") {
		t.Fatalf("drift %+v", rep.Drift)
	}
}

// plainShell is shell without a login shell: a login profile may print
// from a background job (pyenv's "cannot rehash" where its shims are
// read-only), before or after the command's own output, and the order
// changing between the recording and the replay would read as drift.
func plainShell(id, cmd string) string {
	return fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["bash","-c",%q]}}`, id, cmd)
}
