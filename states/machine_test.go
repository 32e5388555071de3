package states

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// The allowed pairs, written out independently of Table() so that a change
// to the table that the design does not sanction fails here.
var allowed = map[State]map[Event]State{
	WantsApproval:    {Ask: AwaitingDecision, RunSandboxed: Sandboxed, RunUnsandboxed: Unsandboxed, Deny: Denied, Fail: Done},
	AwaitingDecision: {RunSandboxed: Sandboxed, RunUnsandboxed: Unsandboxed, Deny: Denied, Interrupt: Done},
	Sandboxed:        {SandboxDenied: RetryPrompt, Finish: Done, Interrupt: Done},
	RetryPrompt:      {Ask: AwaitingDecision, RunUnsandboxed: Unsandboxed, Finish: Done, Interrupt: Done},
	Unsandboxed:      {Finish: Done, Interrupt: Done},
	Denied:           {Finish: Done},
	Done:             {},
}

func TestEveryStateEventPairFollowsTheDesignTable(t *testing.T) {
	for _, s := range States() {
		for _, ev := range Events() {
			want, ok := allowed[s][ev]
			t.Run(string(s)+"/"+string(ev), func(t *testing.T) {
				var recorded []events.Transition
				c := RestoreMachine("c1", s, SinkFunc(func(tr events.Transition) error {
					recorded = append(recorded, tr)
					return nil
				}))
				tr, err := c.Fire(context.Background(), ev, CauseCompleted, "because")
				if !ok {
					var inv *InvalidTransitionError
					if !errors.As(err, &inv) {
						t.Fatalf("want InvalidTransitionError, got %v", err)
					}
					if inv.CallID != "c1" || inv.State != s || inv.Event != ev {
						t.Fatalf("error names %+v", inv)
					}
					for _, part := range []string{"c1", string(s), string(ev)} {
						if !strings.Contains(err.Error(), part) {
							t.Fatalf("error %q does not name %q", err, part)
						}
					}
					if len(recorded) != 0 || c.Current() != s {
						t.Fatalf("rejected event moved the machine or reached the sink")
					}
					return
				}
				if err != nil {
					t.Fatalf("allowed transition failed: %v", err)
				}
				if c.Current() != want {
					t.Fatalf("state %s, want %s", c.Current(), want)
				}
				wantTr := events.Transition{CallID: "c1", From: string(s), Event: string(ev), To: string(want), Cause: string(CauseCompleted), Reason: "because"}
				if len(recorded) != 1 || recorded[0] != wantTr || tr != wantTr {
					t.Fatalf("recorded %+v, returned %+v", recorded, tr)
				}
			})
		}
	}
}

func TestTableHasExactlySevenStatesAndNoSelfLoops(t *testing.T) {
	seen := map[State]bool{}
	for _, e := range Table() {
		seen[e.To] = true
		for _, f := range e.From {
			seen[f] = true
			if f == e.To {
				t.Errorf("self transition %s on %s: looplab/fsm would return NoTransitionError", f, e.Event)
			}
		}
	}
	if len(seen) != 7 || len(States()) != 7 {
		t.Fatalf("states in table: %v", seen)
	}
}

func TestSinkFailureLeavesTheMachineWhereItWas(t *testing.T) {
	boom := errors.New("disk full")
	c := NewMachine("c9", SinkFunc(func(events.Transition) error { return boom }))
	_, err := c.Fire(context.Background(), RunSandboxed, CausePolicySkip, "x")
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if c.Current() != WantsApproval {
		t.Fatalf("machine moved to %s without a recorded transition", c.Current())
	}
}

func TestDocsDiagramMatchesTheRunningTable(t *testing.T) {
	b, err := os.ReadFile("../docs/fsm.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "```mermaid\n"+Mermaid()+"```") {
		t.Fatalf("docs/fsm.md is out of date; regenerate it with: go run ./cmd/docket fsm --format mermaid\nwant:\n%s", Mermaid())
	}
}

func TestOnlyUserOrPolicyCausesJustifyUnsandboxed(t *testing.T) {
	for _, c := range []Cause{CauseEscalationRequested, CausePolicySkip, CauseKnownSafe, CauseApprovalTimeout, CauseSandboxDenial} {
		if c.JustifiesUnsandboxed() {
			t.Errorf("%s must not justify an unsandboxed run", c)
		}
	}
	for _, c := range []Cause{CauseUserApproved, CauseUserApprovedForSession, CauseRuleAllow, CauseDangerFullAccess, CauseExternalSandbox, CauseAlreadyApproved} {
		if !c.JustifiesUnsandboxed() {
			t.Errorf("%s should justify an unsandboxed run", c)
		}
	}
}

func TestARecordedTransitionHappensEvenWhenTheContextIsCancelled(t *testing.T) {
	c := NewMachine("c1", SinkFunc(func(events.Transition) error { return nil }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Fire(ctx, Ask, CauseNeedsApproval, "x"); err != nil {
		t.Fatal(err)
	}
	if c.Current() != AwaitingDecision {
		t.Fatalf("state %s after a recorded ask", c.Current())
	}
	if _, err := c.Fire(ctx, Interrupt, CauseUserAbort, "y"); err != nil || c.Current() != Done {
		t.Fatalf("interrupt after cancellation: %v, state %s", err, c.Current())
	}
}

// BenchmarkFireThroughAPool measures one call's whole path (run, finish)
// with the journal sink stubbed: the cost looplab adds per move.
func BenchmarkFireThroughAPool(b *testing.B) {
	p := NewPool()
	sink := SinkFunc(func(events.Transition) error { return nil })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m := p.New("c1", sink)
		if _, err := m.Fire(ctx, RunSandboxed, CausePolicySkip, "r"); err != nil {
			b.Fatal(err)
		}
		if _, err := m.Fire(ctx, Finish, CauseCompleted, "r"); err != nil {
			b.Fatal(err)
		}
	}
}
