package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
)

// usedHost is memHost that keeps what each Model call was told the
// child's journal had used.
type usedHost struct {
	*memHost
	mu   sync.Mutex
	used []engine.ScriptUse
}

func (h *usedHost) Model(name string, used engine.ScriptUse) (model.Model, error) {
	h.mu.Lock()
	h.used = append(h.used, used)
	h.mu.Unlock()
	return h.memHost.Model(name, used)
}

// TestAResumedSubagentIsToldWhatItsJournalUsed: a subagent resumed with
// its parent (a crash between the child's end and the parent's outcome)
// is given its model by ScriptLinesUsed of its own journal, the rule a
// resumed session follows: the compaction it had made counts, so its
// script would go on past that compact line.
func TestAResumedSubagentIsToldWhatItsJournalUsed(t *testing.T) {
	t.Parallel()
	sm, err := script.Parse("child.jsonl", []byte(strings.Join([]string{
		`{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"a","name":"a"}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`,
		`{"agent":"a","output":[{"type":"message","content":"a done"}]}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	host := &usedHost{memHost: &memHost{logs: map[string]*enginetest.MemLog{}, script: sm}}
	cfg := engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b61", Cwd: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
		Model:   sm, Approver: &netApprover{decide: answer(events.Denied)}, Runner: &enginetest.FakeRunner{}, Agents: host,
		Tools: []engine.Tool{engine.ShellTool{}, engine.SpawnAgentTool{}}}
	var parentLog enginetest.MemLog
	s, err := engine.Start(cfg, &parentLog)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Turn(context.Background(), "go"); err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	// The child compacted after its turn (a compaction takes a compact
	// line of a scripted model).
	var childLog *enginetest.MemLog
	for id, l := range host.logs {
		if id != cfg.SessionID {
			childLog = l
		}
	}
	if _, err := childLog.Append(time.Now(), "", events.Compaction{Trigger: "manual", Summary: "a so far"}); err != nil {
		t.Fatal(err)
	}
	want := engine.ScriptLinesUsed(childLog.Records())
	if want.Compactions != 1 || want.Responses != 1 {
		t.Fatalf("the child's journal used %+v; the test wants one response and one compaction", want)
	}
	// The parent as a crash left it: the child's call started, no outcome.
	recs := parentLog.Records()
	cut := len(recs)
	for i, r := range recs {
		if r.Kind == events.KindExecOutcome && r.CallID == "p1" {
			cut = i
			break
		}
	}
	host.used = nil
	var resumedLog enginetest.MemLog
	for _, r := range recs[:cut] {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := resumedLog.Append(time.Unix(0, r.At), r.CallID, b); err != nil {
			t.Fatal(err)
		}
	}
	r, err := engine.Resume(cfg, &resumedLog, resumedLog.Records(), events.SessionResumed{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Continue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(host.used) != 1 || host.used[0] != want {
		t.Fatalf("the resumed child's model was told %+v; its journal used %+v", host.used, want)
	}
}
