package approve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// Terminal asks a person at a terminal. Concurrent requests are asked one
// at a time. Input typed before a prompt appears is discarded, so a stray
// keystroke never answers a question nobody saw.
type Terminal struct {
	sem  chan struct{} // one prompt at a time; a channel so waiting honours ctx
	in   *os.File
	out  io.Writer
	own  bool // in was opened here and is closed by Close
	buf  []byte
	read func(ctx context.Context, p []byte) (int, error)
	// color: the prompt may use ANSI colours (the diff of a patch).
	color bool
}

// SetColor lets the prompt use ANSI colours; the caller decides, from
// --color, NO_COLOR and whether the output is a terminal.
func (t *Terminal) SetColor(on bool) { t.color = on }

// NewTerminal prompts on out and reads answers from in. in should be a
// terminal opened with os.OpenFile (so reads can be cancelled); os.Stdin
// works too, but a cancelled prompt then leaves one read pending.
func NewTerminal(in *os.File, out io.Writer) *Terminal {
	t := &Terminal{sem: make(chan struct{}, 1), in: in, out: out}
	t.read = t.readGoroutine
	if in.SetReadDeadline(time.Time{}) == nil {
		t.read = t.readDeadline
	}
	return t
}

// OpenTerminal opens the controlling terminal (/dev/tty) and prompts on it.
func OpenTerminal() (*Terminal, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open the terminal: %w", err)
	}
	t := NewTerminal(f, f)
	t.own = true
	return t, nil
}

// Close closes the terminal if OpenTerminal opened it.
func (t *Terminal) Close() error {
	if t.own {
		return t.in.Close()
	}
	return nil
}

// decisionFor maps what a person typed to a decision, or "".
func decisionFor(s string) events.ReviewDecision {
	switch s {
	case "y", "yes":
		return events.Approved
	case "s", "session":
		return events.ApprovedForSession
	case "p":
		return events.ApprovedExecpolicyAmendment
	case "n", "no", "f":
		return events.Denied
	case "a", "abort":
		return events.Abort
	}
	return ""
}

// Decide shows the request and waits for an answer. It returns ctx's
// error when ctx ends first, and engine.ErrNoDecision when the terminal
// is closed.
func (t *Terminal) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return engine.Answer{}, ctx.Err()
	}
	defer func() { <-t.sem }()

	t.discardTypeahead()
	fmt.Fprint(t.out, prompt(req, t.color))
	for {
		fmt.Fprint(t.out, choices(req))
		line, err := t.readLine(ctx)
		if err != nil {
			fmt.Fprintln(t.out)
			if ctx.Err() != nil {
				return engine.Answer{}, ctx.Err()
			}
			if errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO) {
				return engine.Answer{}, fmt.Errorf("call %s: the terminal closed: %w", req.CallID, engine.ErrNoDecision)
			}
			return engine.Answer{}, fmt.Errorf("call %s: read the answer: %w", req.CallID, err)
		}
		typed := strings.ToLower(strings.TrimSpace(line))
		ans, ok := AnswerFor(req, typed, "")
		if !ok {
			fmt.Fprintln(t.out, pleaseAnswer(req))
			continue
		}
		if typed == "f" {
			fb, err := t.feedback(ctx, req)
			if err != nil {
				return engine.Answer{}, err
			}
			ans.Feedback = fb
		}
		fmt.Fprintf(t.out, "  decision: %s\n", ans.Decision)
		return ans, nil
	}
}

// feedback asks what the model should be told with a denial.
func (t *Terminal) feedback(ctx context.Context, req engine.ApprovalRequest) (string, error) {
	fmt.Fprint(t.out, "tell the model why (one line; Enter for none): ")
	line, err := t.readLine(ctx)
	if err != nil {
		fmt.Fprintln(t.out)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO) {
			return "", fmt.Errorf("call %s: the terminal closed: %w", req.CallID, engine.ErrNoDecision)
		}
		return "", fmt.Errorf("call %s: read the feedback: %w", req.CallID, err)
	}
	return strings.TrimSpace(line), nil
}

// discardTypeahead drops input that arrived before the prompt.
func (t *Terminal) discardTypeahead() {
	t.buf = t.buf[:0]
	// Through SyscallConn, not Fd: Fd would put the file in blocking mode
	// and read deadlines, hence cancellation, would stop working. On
	// something that is not a terminal the ioctl fails, harmlessly.
	if rc, err := t.in.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = flushInput(int(fd)) })
	}
}

// readLine returns the next line of input, without its newline.
func (t *Terminal) readLine(ctx context.Context) (string, error) {
	var chunk [256]byte
	for {
		if i := bytes.IndexByte(t.buf, '\n'); i >= 0 {
			line := string(t.buf[:i])
			t.buf = append(t.buf[:0], t.buf[i+1:]...)
			return line, nil
		}
		n, err := t.read(ctx, chunk[:])
		t.buf = append(t.buf, chunk[:n]...)
		if err != nil {
			return "", err
		}
	}
}

// readDeadline reads with cancellation: ctx's end sets a read deadline in
// the past, which wakes the blocked read.
func (t *Terminal) readDeadline(ctx context.Context, p []byte) (int, error) {
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		_ = t.in.SetReadDeadline(time.Time{})
		stop := context.AfterFunc(ctx, func() { _ = t.in.SetReadDeadline(time.Unix(1, 0)) })
		n, err := t.in.Read(p)
		stop()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			// A cancellation of an earlier prompt landed late: read on.
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

// readGoroutine reads where deadlines are not supported: a cancelled read
// is abandoned and its input, if any ever comes, dropped.
func (t *Terminal) readGoroutine(ctx context.Context, p []byte) (int, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b := make([]byte, len(p))
		n, err := t.in.Read(b)
		ch <- result{b[:n], err}
	}()
	select {
	case r := <-ch:
		return copy(p, r.b), r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
