package approve

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"golang.org/x/sys/unix"
)

// screen collects what the terminal shows (the pty master's output) and
// lets a test wait for text to appear on it.
type screen struct {
	mu   sync.Mutex
	cond *sync.Cond
	text strings.Builder
	done bool
}

func newScreen(master *os.File) *screen {
	s := &screen{}
	s.cond = sync.NewCond(&s.mu)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			// The line discipline turns \n into \r\n on output.
			s.text.WriteString(strings.ReplaceAll(string(buf[:n]), "\r", ""))
			if err != nil {
				s.done = true
			}
			s.cond.Broadcast()
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// waitFor blocks until the screen shows want n times in all; the test's
// own -timeout bounds it. It returns everything shown so far.
func (s *screen) waitFor(t *testing.T, want string, n int) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for strings.Count(s.text.String(), want) < n {
		if s.done {
			t.Fatalf("terminal closed before showing %q %d times; it showed:\n%s", want, n, s.text.String())
		}
		s.cond.Wait()
	}
	return s.text.String()
}

// newPTY opens a pseudo-terminal: the approver gets the tty side, the test
// types on the master side.
func newPTY(t *testing.T) (master *os.File, term *Terminal, scr *screen) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	// pty.Open leaves the master in blocking mode (it calls Fd), and a
	// blocked read would keep Close from closing it. A non-blocking dup
	// goes through the poller, so closing it hangs up the terminal.
	fd, err := unix.Dup(int(ptmx.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	ptmx.Close()
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	master = os.NewFile(uintptr(fd), "ptmx")
	t.Cleanup(func() { tty.Close(); master.Close() })
	return master, NewTerminal(tty, tty), newScreen(master)
}

func execRequest(id string) engine.ApprovalRequest {
	return engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{
		CallID: id, TurnID: "turn-1", RequestID: id + "/initial", Phase: events.PhaseInitial, Kind: events.ApprovalExec,
		Command: []string{"bash", "-lc", "touch /etc/x"}, Cwd: "/work", Reason: "writes outside the workspace", Keys: []string{"k"},
	}}
}

type decided struct {
	ans engine.Answer
	err error
}

func decide(ctx context.Context, term *Terminal, req engine.ApprovalRequest) <-chan decided {
	ch := make(chan decided, 1)
	go func() {
		ans, err := term.Decide(ctx, req)
		ch <- decided{ans, err}
	}()
	return ch
}

func TestTerminalPromptAnswers(t *testing.T) {
	amended := execRequest("c1")
	amended.ProposedAmendment = []string{"git", "push"}
	amended.Phase = events.PhaseRetry
	amended.Risk = &events.RiskAssessment{RiskLevel: "high", Description: "pushes to a remote"}
	for _, tc := range []struct {
		name      string
		req       engine.ApprovalRequest
		typed     []string // answers, each typed once the prompt line shows
		decision  events.ReviewDecision
		amendment []string
		shows     []string
		hides     []string
	}{
		{name: "y approves", req: execRequest("c1"), typed: []string{"y"}, decision: events.Approved,
			shows: []string{"Approval requested for call c1 (exec, initial)", "command: bash -lc 'touch /etc/x'", "cwd:     /work",
				"reason:  writes outside the workspace", "answer (y/s/n/f/a): ", "decision: approved"},
			hides: []string{"[p]", "risk:"}},
		{name: "s approves for the session", req: execRequest("c1"), typed: []string{"S"}, decision: events.ApprovedForSession},
		{name: "yes spelt out approves", req: execRequest("c1"), typed: []string{"  yes "}, decision: events.Approved},
		{name: "p saves the proposed rule", req: amended, typed: []string{"p"}, decision: events.ApprovedExecpolicyAmendment, amendment: []string{"git", "push"},
			shows: []string{"(exec, retry)", "risk (the model's assessment): high: pushes to a remote", "rule:    p saves an allow rule for commands starting with: git push",
				"[p] approve and save the rule", "answer (y/s/p/n/f/a): "}},
		{name: "invalid input re-prompts", req: execRequest("c1"), typed: []string{"x", "p", "", "n"}, decision: events.Denied,
			shows: []string{"please answer y, s, n, f or a"}},
		{name: "a aborts", req: execRequest("c1"), typed: []string{"a"}, decision: events.Abort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, term, scr := newPTY(t)
			ch := decide(context.Background(), term, tc.req)
			marker := "answer (y/s/"
			for i, a := range tc.typed {
				scr.waitFor(t, marker, i+1)
				if _, err := master.Write([]byte(a + "\n")); err != nil {
					t.Fatal(err)
				}
			}
			r := <-ch
			if r.err != nil {
				t.Fatalf("Decide: %v", r.err)
			}
			if r.ans.Decision != tc.decision || r.ans.Source != events.SourceUser || strings.Join(r.ans.Amendment, " ") != strings.Join(tc.amendment, " ") {
				t.Errorf("answer = %+v, want %s with amendment %q", r.ans, tc.decision, tc.amendment)
			}
			shown := scr.waitFor(t, "decision: "+tc.decision.String(), 1)
			for _, s := range tc.shows {
				if !strings.Contains(shown, s) {
					t.Errorf("prompt does not show %q:\n%s", s, shown)
				}
			}
			for _, s := range tc.hides {
				if strings.Contains(shown, s) {
					t.Errorf("prompt shows %q:\n%s", s, shown)
				}
			}
		})
	}
}

func TestTerminalHonoursCancellationAndRecovers(t *testing.T) {
	master, term, scr := newPTY(t)
	ctx, cancel := context.WithCancel(context.Background())
	ch := decide(ctx, term, execRequest("c1"))
	scr.waitFor(t, "answer (y/s/n/f/a): ", 1)
	cancel()
	if r := <-ch; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled prompt returned %+v, want context.Canceled", r)
	}
	// A deadline that passes gives the deadline's error, not a denial.
	tctx, tcancel := context.WithTimeout(context.Background(), 1)
	defer tcancel()
	if _, err := term.Decide(tctx, execRequest("c2")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timed-out prompt returned %v, want context.DeadlineExceeded", err)
	}
	// The next prompt still reads answers.
	ch = decide(context.Background(), term, execRequest("c3"))
	scr.waitFor(t, "Approval requested for call c3", 1)
	scr.waitFor(t, "answer (y/s/n/f/a): ", 2)
	if _, err := master.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if r := <-ch; r.err != nil || r.ans.Decision != events.Approved {
		t.Fatalf("prompt after a cancellation: %+v", r)
	}
}

func TestTerminalDiscardsTypeahead(t *testing.T) {
	master, term, scr := newPTY(t)
	// Typed before any prompt: wait for the echo so the line discipline
	// holds it, then the prompt must throw it away.
	if _, err := master.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, "y\n", 1)
	ch := decide(context.Background(), term, execRequest("c1"))
	scr.waitFor(t, "answer (y/s/n/f/a): ", 1)
	if _, err := master.Write([]byte("n\n")); err != nil {
		t.Fatal(err)
	}
	if r := <-ch; r.err != nil || r.ans.Decision != events.Denied {
		t.Fatalf("answer = %+v, want the n typed after the prompt", r)
	}
}

func TestTerminalSerialisesConcurrentRequests(t *testing.T) {
	master, term, scr := newPTY(t)
	first := decide(context.Background(), term, execRequest("c1"))
	shown := scr.waitFor(t, "answer (y/s/n/f/a): ", 1)
	second := decide(context.Background(), term, execRequest("c2"))
	// Whichever request got the terminal first, the other is not shown
	// until it is answered.
	firstID := "c1"
	if strings.Contains(shown, "call c2") {
		firstID, first, second = "c2", second, first
	}
	if _, err := master.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if r := <-first; r.err != nil || r.ans.Decision != events.Approved {
		t.Fatalf("first answer = %+v", r)
	}
	shown = scr.waitFor(t, "answer (y/s/n/f/a): ", 2)
	if _, err := master.Write([]byte("n\n")); err != nil {
		t.Fatal(err)
	}
	if r := <-second; r.err != nil || r.ans.Decision != events.Denied {
		t.Fatalf("second answer = %+v", r)
	}
	// The first prompt was answered before the second appeared.
	i1 := strings.Index(shown, "Approval requested for call "+firstID)
	d1 := strings.Index(shown, "decision: approved")
	other := "c2"
	if firstID == "c2" {
		other = "c1"
	}
	i2 := strings.Index(shown, "Approval requested for call "+other)
	if !(i1 >= 0 && i1 < d1 && d1 < i2) {
		t.Errorf("prompts interleaved:\n%s", shown)
	}
}

func TestTerminalClosedMeansNoDecision(t *testing.T) {
	master, term, scr := newPTY(t)
	ch := decide(context.Background(), term, execRequest("c1"))
	scr.waitFor(t, "answer (y/s/n/f/a): ", 1)
	master.Close()
	if r := <-ch; !errors.Is(r.err, engine.ErrNoDecision) {
		t.Fatalf("closed terminal: %+v, want ErrNoDecision", r)
	}
}
