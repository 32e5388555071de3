package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/events"
)

// TestAStoppedTurnRecordsWhoStoppedIt: only the user's "abort" answer is
// journaled as user_abort; the operator's cancel (Ctrl-C, SIGTERM) is
// cancelled and a passed deadline is deadline, whether the call was
// running or waiting for an answer.
func TestAStoppedTurnRecordsWhoStoppedIt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		approval string
		approver engine.Approver
		// stop ends ctx once the call is running or being asked about.
		stop     func(context.Context) (context.Context, func(), func())
		wantPath string
	}{
		{
			name: "the operator cancels a running call", approval: "on-request",
			stop: func(ctx context.Context) (context.Context, func(), func()) {
				ctx, cancel := context.WithCancel(ctx)
				return ctx, cancel, cancel
			},
			wantPath: "run_sandboxed:policy_skip interrupt:cancelled",
		},
		{
			name: "a deadline passes while a call runs", approval: "on-request",
			stop: func(ctx context.Context) (context.Context, func(), func()) {
				d := newDeadline(ctx)
				return d, d.pass, func() {}
			},
			wantPath: "run_sandboxed:policy_skip interrupt:deadline",
		},
		{
			name: "the operator cancels while an approval is pending", approval: "untrusted",
			approver: &enginetest.ScriptedApprover{Answers: []events.ReviewDecision{enginetest.Wait}},
			stop: func(ctx context.Context) (context.Context, func(), func()) {
				ctx, cancel := context.WithCancel(ctx)
				return ctx, cancel, cancel
			},
			wantPath: "ask:untrusted_policy interrupt:cancelled",
		},
		{
			name: "a deadline passes while an approval is pending", approval: "untrusted",
			approver: &enginetest.ScriptedApprover{Answers: []events.ReviewDecision{enginetest.Wait}},
			stop: func(ctx context.Context) (context.Context, func(), func()) {
				d := newDeadline(ctx)
				return d, d.pass, func() {}
			},
			wantPath: "ask:untrusted_policy interrupt:deadline",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, setup{approval: tc.approval, mode: "workspace-write", approver: tc.approver,
				script: shellLine("c1", "echo started; sleep 30") + "\n" + done})
			ctx, fire, release := tc.stop(context.Background())
			defer release()
			reached := make(chan struct{})
			var once bool
			f.s2(func(n engine.Notice) {
				if (n.Type == engine.NoticeCallOutput || n.Type == engine.NoticeApproval) && !once {
					once = true
					close(reached)
				}
			})
			go func() { <-reached; fire() }()
			res, err := f.s.Turn(ctx, "go")
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != events.TurnAborted {
				t.Fatalf("turn %+v", res)
			}
			if got := f.path("c1"); got != tc.wantPath {
				t.Fatalf("path %q, want %q", got, tc.wantPath)
			}
		})
	}
}

// deadlineCtx is a context whose deadline passes when the test says so,
// exactly as a deadline that passed reports itself (Err and Cause are
// context.DeadlineExceeded), without the test depending on a clock.
type deadlineCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newDeadline(parent context.Context) *deadlineCtx {
	return &deadlineCtx{Context: parent, done: make(chan struct{})}
}

func (d *deadlineCtx) pass() { d.once.Do(func() { close(d.done) }) }

func (d *deadlineCtx) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (d *deadlineCtx) Done() <-chan struct{}       { return d.done }
func (d *deadlineCtx) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
