package approve

import (
	"context"
	"errors"
	"os"

	"github.com/docket-engine/docket/cmd/docket/internal/render"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

func isNoDecision(err error) bool { return errors.Is(err, engine.ErrNoDecision) }

// Auto is the approver a command uses: the --decisions answers first, in
// order; then, when stdin is a terminal, the person at it. Without a
// terminal, a request with no --decisions answer left parks the session.
type Auto struct {
	flags *Flags
	term  *Terminal // nil without a terminal
}

// NewAuto builds the approver for a process whose standard input is stdin.
// When stdin is a terminal it prompts on the controlling terminal
// (/dev/tty), or on stdin itself if that cannot be opened.
func NewAuto(stdin *os.File, decisions []events.ReviewDecision) *Auto {
	return newAuto(stdin, NewFlags(decisions))
}

// NewAddressedAuto is NewAuto over answers some of which are addressed to a
// call (ParseAnswers).
func NewAddressedAuto(stdin *os.File, answers []Addressed) *Auto {
	return newAuto(stdin, NewAddressedFlags(answers))
}

func newAuto(stdin *os.File, flags *Flags) *Auto {
	a := &Auto{flags: flags}
	if render.IsTerminal(stdin) {
		t, err := OpenTerminal()
		if err != nil {
			t = NewTerminal(stdin, stdin)
		}
		a.term = t
	}
	return a
}

// SetColor lets the terminal prompt use colours (see Terminal.SetColor).
func (a *Auto) SetColor(on bool) {
	if a.term != nil {
		a.term.SetColor(on)
	}
}

// Interactive reports whether requests can be put to a person.
func (a *Auto) Interactive() bool { return a.term != nil }

// Remaining returns how many --decisions answers are left.
func (a *Auto) Remaining() int { return a.flags.Remaining() }

// Decide answers from --decisions, then from the terminal.
func (a *Auto) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	if a.term == nil {
		return a.flags.Decide(ctx, req)
	}
	return Chain{a.flags, a.term}.Decide(ctx, req)
}

// Close releases the terminal.
func (a *Auto) Close() error {
	if a.term == nil {
		return nil
	}
	return a.term.Close()
}
