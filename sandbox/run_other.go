//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"runtime"

	"github.com/docket-engine/docket/events"
)

// Run is only implemented on Linux; elsewhere every plan is unavailable.
func Run(ctx context.Context, req Request) (events.ExecOutcome, error) {
	return events.ExecOutcome{}, &UnavailableError{Missing: []string{"linux"}, Hint: hintPlatform, Err: fmt.Errorf("GOOS=%s", runtime.GOOS)}
}

// launch is never reached off Linux: Run refuses first.
func (PerCall) launch(context.Context, call) (events.ExecOutcome, error) {
	return events.ExecOutcome{}, &UnavailableError{Missing: []string{"linux"}, Hint: hintPlatform, Err: fmt.Errorf("GOOS=%s", runtime.GOOS)}
}

// launch is never reached off Linux: Run refuses first.
func (s *Servers) launch(ctx context.Context, c call) (events.ExecOutcome, error) {
	return PerCall{}.launch(ctx, c)
}
