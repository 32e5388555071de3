package replay_test

import (
	"context"
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

// recordUnsandboxed records a danger-full-access session whose parallel
// calls run without a sandbox: c1 writes outside the workspace, c2 and c3
// inside it.
func recordUnsandboxed(t *testing.T, outside string) (journalPath, ws string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	mdl, err := script.Parse("unsandboxed", []byte(line(
		shell("c1", "echo escaped >> "+outside),
		shell("c2", "echo inside > in.txt"),
		shell("c3", "sleep 0.1; echo three > three.txt"))+"\n"+finalMsg))
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	mode, _ := policy.ParseSandboxMode("danger-full-access")
	j, err := journal.Create(home, "unsandboxed", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Start(engine.Config{SessionID: "unsandboxed", Cwd: ws,
		Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "danger-full-access"},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, ws, "", false), Model: mdl,
		Approver: flags(), Runner: &engine.ProcessRunner{HelperPath: exe},
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Turn(context.Background(), "write things"); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return j.Path(), ws
}

func TestLiveReplayConfinesRecordedUnsandboxedCommandsToItsScratchArea(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("/var/tmp", "docket-live-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	outside := filepath.Join(dir, "escaped.txt")
	path, ws := recordUnsandboxed(t, outside)
	// The attack without the protection: run directly, unsandboxed, the
	// command does write outside the workspace.
	if b, err := os.ReadFile(outside); err != nil || string(b) != "escaped\n" {
		t.Fatalf("the recorded session did not write outside the workspace: %q %v", b, err)
	}
	if err := os.Remove(outside); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	rep, err := replay.Live(context.Background(), path, replay.LiveOptions{HelperPath: exe, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("live replay wrote outside its scratch area")
	}
	if _, err := os.Stat(rep.Scratch); !os.IsNotExist(err) {
		t.Fatalf("the scratch area %s is still there (%v)", rep.Scratch, err)
	}
	if rep.ScratchKept || rep.Calls != 3 {
		t.Fatalf("report %+v", rep)
	}
	drift := map[string]replay.Drift{}
	for _, d := range rep.Drift {
		drift[d.CallID] = d
	}
	// Every recorded run was unsandboxed: each is reported; c1, whose write
	// is refused now, fails.
	for _, id := range []string{"c1", "c2", "c3"} {
		d, ok := drift[id]
		if !ok || !strings.HasPrefix(d.Recorded, "without a sandbox") || !strings.HasPrefix(d.Now, "in the sandbox") {
			t.Fatalf("call %s: drift %+v (all: %+v)", id, d, rep.Drift)
		}
	}
	if strings.HasPrefix(strings.TrimPrefix(drift["c1"].Now, "in the sandbox: "), "exit 0") {
		t.Fatalf("c1 succeeded in live replay: %+v", drift["c1"])
	}
	if !strings.Contains(drift["c2"].Now, "exit 0") {
		t.Fatalf("c2 could not write in its scratch workspace: %+v", drift["c2"])
	}
	if _, err := os.Stat(filepath.Join(ws, "in.txt")); err != nil {
		t.Fatalf("the recorded session's own file is gone: %v", err)
	}
	if err := os.Remove(filepath.Join(ws, "in.txt")); err != nil {
		t.Fatal(err)
	}

	// --keep-scratch keeps the area, with what the commands wrote there,
	// and still nothing outside it.
	rep, err = replay.Live(context.Background(), path, replay.LiveOptions{HelperPath: exe, Workspace: ws, KeepScratch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rep.Scratch) })
	if !rep.ScratchKept {
		t.Fatal("the report does not say the scratch area was kept")
	}
	if b, err := os.ReadFile(filepath.Join(rep.Scratch, "workspace", "in.txt")); err != nil || string(b) != "inside\n" {
		t.Fatalf("the kept scratch area lacks what c2 wrote: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "in.txt")); err == nil {
		t.Fatal("live replay wrote into the real workspace")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("live replay wrote outside its scratch area")
	}
}
