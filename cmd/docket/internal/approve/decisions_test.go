package approve

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

func TestParseDecisions(t *testing.T) {
	got, err := ParseDecisions(" approved, approved_for_session,approved_execpolicy_amendment ,denied,abort")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, Decisions()) {
		t.Errorf("got %q", got)
	}
	if got, err := ParseDecisions(""); err != nil || got != nil {
		t.Errorf("empty list = %q, %v", got, err)
	}
	for _, tc := range []struct {
		list       string
		index      int
		suggestion events.ReviewDecision
	}{
		{"approved,aproved", 1, events.Approved},
		{"deny", 0, events.Denied},
		{"approved_for_sesion", 0, events.ApprovedForSession},
		{"approved,,denied", 1, ""},
		{"yes", 0, ""},
	} {
		_, err := ParseDecisions(tc.list)
		var de *DecisionError
		if !errors.As(err, &de) || de.Index != tc.index || de.Suggestion != tc.suggestion.String() {
			t.Errorf("ParseDecisions(%q) = %v, want item %d with suggestion %q", tc.list, err, tc.index+1, tc.suggestion)
			continue
		}
		if tc.suggestion != "" && !strings.Contains(err.Error(), `did you mean "`+tc.suggestion.String()+`"`) {
			t.Errorf("error %q lacks the suggestion", err)
		}
	}
}

func TestFlagsAnswerInOrderThenPark(t *testing.T) {
	f := NewFlags([]events.ReviewDecision{events.Approved, events.ApprovedExecpolicyAmendment, events.Denied})
	req := execRequest("c1")
	req.ProposedAmendment = []string{"git", "push"}
	var got []engine.Answer
	for range 3 {
		a, err := f.Decide(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a)
	}
	if got[0].Decision != events.Approved || got[1].Decision != events.ApprovedExecpolicyAmendment || got[2].Decision != events.Denied {
		t.Errorf("answers = %+v", got)
	}
	if strings.Join(got[1].Amendment, " ") != "git push" || got[0].Amendment != nil {
		t.Errorf("amendments = %q, %q", got[0].Amendment, got[1].Amendment)
	}
	for _, a := range got {
		if a.Source != events.SourceFlag {
			t.Errorf("source = %q", a.Source)
		}
	}
	if _, err := f.Decide(context.Background(), req); !errors.Is(err, engine.ErrNoDecision) {
		t.Errorf("exhausted list: %v, want ErrNoDecision", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewFlags([]events.ReviewDecision{events.Approved}).Decide(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestFlagsGiveEachAnswerOnceUnderConcurrency(t *testing.T) {
	const n = 50
	list := make([]events.ReviewDecision, n)
	for i := range list {
		list[i] = events.Approved
	}
	f := NewFlags(list)
	var wg sync.WaitGroup
	var mu sync.Mutex
	answered, parked := 0, 0
	for range n + 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.Decide(context.Background(), execRequest("c"))
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				answered++
			} else if errors.Is(err, engine.ErrNoDecision) {
				parked++
			}
		}()
	}
	wg.Wait()
	if answered != n || parked != 10 || f.Remaining() != 0 {
		t.Errorf("answered %d parked %d remaining %d", answered, parked, f.Remaining())
	}
}

type approverFunc func(context.Context, engine.ApprovalRequest) (engine.Answer, error)

func (f approverFunc) Decide(ctx context.Context, r engine.ApprovalRequest) (engine.Answer, error) {
	return f(ctx, r)
}

func TestChainFallsThroughOnlyOnNoDecision(t *testing.T) {
	none := approverFunc(func(context.Context, engine.ApprovalRequest) (engine.Answer, error) {
		return engine.Answer{}, engine.ErrNoDecision
	})
	yes := approverFunc(func(context.Context, engine.ApprovalRequest) (engine.Answer, error) {
		return engine.Answer{Decision: events.Approved, Source: events.SourceUser}, nil
	})
	broken := approverFunc(func(context.Context, engine.ApprovalRequest) (engine.Answer, error) {
		return engine.Answer{}, errors.New("tty gone wrong")
	})
	if a, err := (Chain{none, yes}).Decide(context.Background(), execRequest("c1")); err != nil || a.Decision != events.Approved {
		t.Errorf("none then yes = %+v, %v", a, err)
	}
	if _, err := (Chain{broken, yes}).Decide(context.Background(), execRequest("c1")); err == nil || errors.Is(err, engine.ErrNoDecision) {
		t.Errorf("a real error must stop the chain, got %v", err)
	}
	if _, err := (Chain{none, none}).Decide(context.Background(), execRequest("c1")); !errors.Is(err, engine.ErrNoDecision) {
		t.Errorf("nobody answers: %v", err)
	}
}

func TestAutoWithoutATerminalUsesDecisionsThenParks(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	a := NewAuto(r, []events.ReviewDecision{events.Denied})
	defer a.Close()
	if a.Interactive() {
		t.Fatal("a pipe is not a terminal")
	}
	if ans, err := a.Decide(context.Background(), execRequest("c1")); err != nil || ans.Decision != events.Denied {
		t.Fatalf("first = %+v, %v", ans, err)
	}
	if _, err := a.Decide(context.Background(), execRequest("c2")); !errors.Is(err, engine.ErrNoDecision) {
		t.Fatalf("second = %v, want ErrNoDecision (park)", err)
	}
}

func TestAutoOnATerminalUsesDecisionsFirst(t *testing.T) {
	master, term, scr := newPTY(t)
	a := &Auto{flags: NewFlags([]events.ReviewDecision{events.ApprovedForSession}), term: term}
	if ans, err := a.Decide(context.Background(), execRequest("c1")); err != nil || ans.Source != events.SourceFlag {
		t.Fatalf("first = %+v, %v", ans, err)
	}
	ch := make(chan engine.Answer, 1)
	go func() {
		ans, _ := a.Decide(context.Background(), execRequest("c2"))
		ch <- ans
	}()
	scr.waitFor(t, "answer (y/s/n/f/a): ", 1)
	if _, err := master.Write([]byte("n\n")); err != nil {
		t.Fatal(err)
	}
	if ans := <-ch; ans.Decision != events.Denied || ans.Source != events.SourceUser {
		t.Fatalf("second = %+v", ans)
	}
}
