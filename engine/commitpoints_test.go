package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/journal/journaltest"
	"github.com/docket-engine/docket/states/policy"
)

// traceLog is the real bbolt journal, noting after which record each
// commit that wrote something ended. hold, when set, keeps the first
// commit after an exec_started waiting until that many exec_started
// records are appended: a slow disk, while parallel calls arrive.
type traceLog struct {
	j    *journal.Journal
	hold int

	mu      sync.Mutex
	cond    *sync.Cond
	started int      // exec_started records appended
	ends    []uint64 // last seq of each commit that wrote
}

func newTraceLog(j *journal.Journal, hold int) *traceLog {
	l := &traceLog{j: j, hold: hold}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *traceLog) Append(at time.Time, callID string, body any) (events.Record, error) {
	rec, err := l.j.Append(at, callID, body)
	if err == nil && rec.Kind == events.KindExecStarted {
		l.mu.Lock()
		l.started++
		l.cond.Broadcast()
		l.mu.Unlock()
	}
	return rec, err
}

// Durable is the journal's: the engine credits a commit with what it
// really covered (engine.DurableLog).
func (l *traceLog) Durable() uint64 { return l.j.Durable() }

func (l *traceLog) Commit() error {
	l.mu.Lock()
	if l.hold > 0 && l.started > 0 {
		// Bounded: a broken grouping shows up as a wrong count, not a hang.
		deadline := time.AfterFunc(10*time.Second, func() {
			l.mu.Lock()
			l.hold = 0
			l.cond.Broadcast()
			l.mu.Unlock()
		})
		for l.hold > 0 && l.started < l.hold {
			l.cond.Wait()
		}
		deadline.Stop()
		l.hold = 0
	}
	l.mu.Unlock()
	last := l.j.NextSeq() - 1
	before := l.j.Commits()
	err := l.j.Commit()
	if l.j.Commits() > before {
		l.mu.Lock()
		l.ends = append(l.ends, last)
		l.mu.Unlock()
	}
	return err
}

// aheadRunner finishes every call at once, after checking the write-ahead
// rule the way a crash would: its exec_started record is on disk.
type aheadRunner struct {
	path string

	mu     sync.Mutex
	misses []string
}

func (*aheadRunner) Check(context.Context, engine.RunRequest) error { return nil }

func (r *aheadRunner) Run(_ context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	recs, err := journaltest.OnDisk(r.path)
	found := false
	for _, rec := range recs {
		if rec.Kind == events.KindExecStarted && rec.CallID == req.CallID {
			found = true
		}
	}
	if err != nil || !found {
		r.mu.Lock()
		r.misses = append(r.misses, fmt.Sprintf("%s (read: %v)", req.CallID, err))
		r.mu.Unlock()
	}
	return events.ExecOutcome{ExitCode: 0, Output: "ok\n", DurationNs: 1000}, nil
}

// commitKinds runs one turn of script under the real journal and returns,
// for each commit that wrote, the kind of the last record it covered.
func commitKinds(t *testing.T, approval string, answers []events.ReviewDecision, hold int, script0 string) []string {
	t.Helper()
	mdl, err := script.Parse("script", []byte(script0))
	if err != nil {
		t.Fatal(err)
	}
	home, ws := t.TempDir(), t.TempDir()
	j, err := journal.Create(home, "commits", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	log := newTraceLog(j, hold)
	runner := &aheadRunner{path: j.Path()}
	mode, _ := policy.ParseSandboxMode("danger-full-access")
	s, err := engine.Start(engine.Config{SessionID: "commits", Home: home, Cwd: ws,
		Session: events.SessionConfig{ApprovalPolicy: approval, SandboxMode: "danger-full-access"},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, ws, "", false), Model: mdl,
		Approver: &enginetest.ScriptedApprover{Answers: answers}, Runner: runner,
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.Turn(ctx, "go")
	if err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("turn: %v %+v", err, res)
	}
	if len(runner.misses) > 0 {
		t.Fatalf("calls started before their exec_started was on disk: %v", runner.misses)
	}
	recs, err := j.All()
	if err != nil {
		t.Fatal(err)
	}
	kind := map[uint64]string{}
	for _, r := range recs {
		kind[r.Seq] = string(r.Kind)
	}
	var out []string
	for _, end := range log.ends {
		out = append(out, kind[end])
	}
	return out
}

// shellCalls is a script line: one response with a shell call per command.
func shellCalls(ids ...string) string {
	var items []string
	for _, id := range ids {
		items = append(items, fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["touch",%q]}}`, id, id))
	}
	return `{"output":[` + strings.Join(items, ",") + `]}`
}

const doneLine = `{"output":[{"type":"message","content":"done"}]}`

// TestDurableCommitsPerCall holds the engine to its durability points
// (engine/commit.go): one commit per executed call in a serial session,
// carrying the previous call's outcome and the model exchange that asked
// for the call; a person's words durable before the model is asked; one
// commit shared by parallel calls that arrive while it is in flight. Each
// entry is the kind of the record a commit ended with, in order.
func TestDurableCommitsPerCall(t *testing.T) {
	t.Parallel()
	five := []string{shellCalls("c1"), shellCalls("c2"), shellCalls("c3"), shellCalls("c4"), shellCalls("c5"), doneLine}
	tests := []struct {
		name     string
		approval string
		answers  []events.ReviewDecision
		hold     int
		lines    []string
		want     []string
	}{{
		name: "serial calls: the user turn before the first request, then one write-ahead commit per call, then the turn's end",
		// session_started is committed by engine.Start, before the trace
		// sees the turn; it is the first entry.
		approval: "never", lines: five,
		want: []string{"session_started", "model_request", "exec_started", "exec_started", "exec_started", "exec_started", "exec_started", "turn_ended"},
	}, {
		name:     "approved calls: the request goes out durable, the answer rides on the write-ahead commit",
		approval: "untrusted", answers: []events.ReviewDecision{events.Approved, events.Approved},
		lines: []string{shellCalls("c1"), shellCalls("c2"), doneLine},
		want:  []string{"session_started", "model_request", "approval_requested", "exec_started", "approval_requested", "exec_started", "turn_ended"},
	}, {
		name:     "a denial is durable before the model hears of it",
		approval: "untrusted", answers: []events.ReviewDecision{events.Denied, events.Approved},
		lines: []string{shellCalls("c1"), shellCalls("c2"), doneLine},
		want:  []string{"session_started", "model_request", "approval_requested", "model_request", "approval_requested", "exec_started", "turn_ended"},
	}, {
		name:     "parallel calls arriving during a commit share the next one",
		approval: "never", hold: 6,
		lines: []string{shellCalls("p1", "p2", "p3", "p4", "p5", "p6"), doneLine},
		want:  []string{"session_started", "model_request", "exec_started", "turn_ended"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := commitKinds(t, tc.approval, tc.answers, tc.hold, strings.Join(tc.lines, "\n"))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("commits ended at\n  %s\nwant\n  %s", strings.Join(got, " "), strings.Join(tc.want, " "))
			}
		})
	}
}
