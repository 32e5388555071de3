package engine

import (
	"context"
	"errors"

	"github.com/docket-engine/docket/states"
)

// stopCause says why ctx stopped a turn, for the journal: the user's own
// "abort" answer (user_abort), a deadline the caller set on the turn or
// the session (deadline), or anything else, which is the operator
// cancelling: Ctrl-C, SIGTERM, a library caller's cancel (cancelled). Only
// the first blames the user; the audit must not say the user aborted a
// turn they never saw.
func stopCause(ctx context.Context) (states.Cause, string) {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errAborted):
		return states.CauseUserAbort, "the turn was aborted"
	case errors.Is(cause, context.DeadlineExceeded):
		return states.CauseDeadline, "the turn's deadline passed"
	}
	return states.CauseCancelled, "the turn was cancelled (interrupt, termination signal or the caller)"
}
