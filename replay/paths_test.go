package replay_test

import (
	"context"
	"os"
	"path/filepath"
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

// apply_patch's requirement depends on where its paths really lead. The
// engine reads that from the disk when the response arrives and journals
// it, so a replay decides the same after the disk changed.
func TestPatchPathResolutionsAreJournaledAndReplayedWithoutTheDisk(t *testing.T) {
	t.Parallel()
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	link := filepath.Join(ws, "out")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	patch := `{"output":[{"type":"custom_tool_call","call_id":"p1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: out/x.txt\n+hi\n*** End Patch\n"}]}`
	mdl, err := script.Parse("paths", []byte(patch+"\n"+finalMsg))
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	j, err := journal.Create(home, "paths", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Start(engine.Config{SessionID: "paths", Cwd: ws,
		// Without /tmp as a root, so that outside (a temp dir) is outside.
		Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write", ExcludeSlashTmp: true},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: policy.WorkspaceWrite, ExcludeSlashTmp: true}, ws, "", false), Model: mdl,
		Approver: flags("denied"), Runner: &engine.ProcessRunner{HelperPath: exe},
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Turn(context.Background(), "write it"); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	recs := readAll(t, j.Path())
	var resolved []events.ResolvedPath
	asked := false
	for _, r := range recs {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch v := b.(type) {
		case *events.ModelResponse:
			resolved = append(resolved, v.Resolved...)
		case *events.ApprovalRequested:
			asked = true
		}
	}
	want := []events.ResolvedPath{{CallID: "p1", Path: filepath.Join(ws, "out", "x.txt"), Real: filepath.Join(workspace.RealPath(outside), "x.txt")}}
	if len(resolved) != 1 || resolved[0] != want[0] {
		t.Fatalf("resolved %+v; want %+v", resolved, want)
	}
	if !asked {
		t.Fatal("a patch through a symlink out of the workspace ran without asking")
	}

	// Now the symlink is gone: read from the disk, the path would be inside
	// the workspace and skip the prompt. The recorded resolution decides.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if _, err := replay.VerifyFile(context.Background(), j.Path(), replay.Options{}); err != nil {
		t.Fatalf("verify after the disk changed: %v", err)
	}
}
