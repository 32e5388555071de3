package replay_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/docket-engine/docket/states/policy"
)

// subagentDir holds the golden tree: a parent whose subagent parked on an
// approval (so the parent parked), then a resume that answered it.
var subagentDir = filepath.Join("..", "testdata", "journals", "subagents")

// fileHost files children's journals under home, as the CLI's host does.
type fileHost struct {
	home   string
	script *script.Model
}

func (h fileHost) CreateLog(id string) (engine.ChildLog, error) {
	return journal.Create(h.home, id, time.Date(2026, 11, 22, 10, 0, 1, 0, time.UTC))
}

func (h fileHost) OpenLog(id string) (engine.ChildLog, []events.Record, error) {
	sf, err := journal.Find(h.home, id)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	j, err := journal.Open(sf.Path)
	if err != nil {
		return nil, nil, err
	}
	recs, err := j.All()
	if err != nil {
		return nil, nil, errors.Join(err, j.Close())
	}
	return j, recs, nil
}

func (h fileHost) Model(name string, used engine.ScriptUse) (model.Model, error) {
	m := h.script.ForAgent(name)
	m.Skip(used.Responses)
	m.SkipCompactions(used.Compactions)
	return m, nil
}

var subagentScript = strings.Join([]string{
	line(`{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"write a.txt","name":"writer","approval_policy":"untrusted"}}`),
	finalMsg,
	`{"agent":"writer","output":[` + shell("w1", "echo hi > a.txt") + `]}`,
	`{"agent":"writer","output":[{"type":"message","content":"wrote a.txt"}]}`,
}, "\n")

// recordSubagents records the tree for real (real sandbox, real journals)
// and returns the home holding it and the parent's id.
func recordSubagents(t *testing.T) (home, parent string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	exe, _ := os.Executable()
	plan := workspace.SandboxPlan(policy.SandboxPolicy{Mode: policy.WorkspaceWrite}, ws, "", false)
	parent = "golden-subagents"
	base := engine.Config{SessionID: parent, Home: home, Cwd: ws, Plan: plan, DocketVersion: "test",
		Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
		Tools:   []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}, engine.SpawnAgentTool{}}}
	for i, answers := range [][]string{nil, {"approved"}} {
		mdl, err := script.Parse("subagents", []byte(subagentScript))
		if err != nil {
			t.Fatal(err)
		}
		cfg := base
		cfg.Approver, cfg.Runner = flags(answers...), &engine.ProcessRunner{HelperPath: exe}
		cfg.Agents = fileHost{home: home, script: mdl}
		var res engine.TurnResult
		if i == 0 {
			cfg.Model = mdl
			j, err := journal.Create(home, parent, time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			s, err := engine.Start(cfg, j)
			if err != nil {
				t.Fatal(err)
			}
			if res, err = s.Turn(context.Background(), "have it written"); err != nil {
				t.Fatal(err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if res.Status != events.TurnParked || len(res.Parked) != 1 || res.Parked[0] != "writer/w1" {
				t.Fatalf("first process: %+v, want parked on writer/w1", res)
			}
			continue
		}
		sf, err := journal.Find(home, parent)
		if err != nil {
			t.Fatal(err)
		}
		j, err := journal.Open(sf.Path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := j.All()
		if err != nil {
			t.Fatal(err)
		}
		mdl.Skip(1)
		cfg.Model = mdl
		s, err := engine.Resume(cfg, j, recs, events.SessionResumed{PID: 1, Decisions: "approved"})
		if err != nil {
			t.Fatal(err)
		}
		if res, err = s.Continue(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if res.Status != events.TurnCompleted {
			t.Fatalf("resume: %+v", res)
		}
	}
	return home, parent
}

// verifyTree verifies every session of the tree rooted at path.
func verifyTree(t *testing.T, path string, find func(string) (string, error)) int {
	t.Helper()
	nodes, err := replay.Tree(path, find)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if _, err := replay.VerifyFile(context.Background(), n.Path, replay.Options{}); err != nil {
			t.Fatalf("%s (%s): %v", n.Prefix, n.Path, err)
		}
	}
	return len(nodes)
}

// A fresh recording of the parked-then-resumed tree verifies (each
// session, the parent replaying its child's recorded outcome and parking
// where it parked), and so does the committed one: a change of behaviour
// shows up as a divergence. go test ./replay -run Subagent -update
// re-records it.
func TestSubagentTreeVerifies(t *testing.T) {
	t.Parallel()
	home, parent := recordSubagents(t)
	sf, err := journal.Find(home, parent)
	if err != nil {
		t.Fatal(err)
	}
	find := func(id string) (string, error) {
		f, err := journal.Find(home, id)
		return f.Path, err
	}
	if n := verifyTree(t, sf.Path, find); n != 2 {
		t.Fatalf("fresh tree has %d sessions, want 2", n)
	}
	if *update {
		if err := os.MkdirAll(subagentDir, 0o755); err != nil {
			t.Fatal(err)
		}
		nodes, _ := replay.Tree(sf.Path, find)
		for _, n := range nodes {
			b, err := os.ReadFile(n.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(subagentDir, n.SessionID+journal.Ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	golden := func(id string) (string, error) {
		p := filepath.Join(subagentDir, id+journal.Ext)
		_, err := os.Stat(p)
		return p, err
	}
	root, err := golden(parent)
	if err != nil {
		t.Fatalf("no golden tree: record it with go test ./replay -run Subagent -update: %v", err)
	}
	if n := verifyTree(t, root, golden); n != 2 {
		t.Fatalf("golden tree has %d sessions, want 2", n)
	}
}
