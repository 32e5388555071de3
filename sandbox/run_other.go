//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/docket-engine/docket/events"
)

// Run is only implemented on Linux; elsewhere every plan is unavailable.
func Run(ctx context.Context, req Request) (events.ExecOutcome, error) {
	return events.ExecOutcome{}, &UnavailableError{Missing: []string{"linux"}, Hint: hintPlatform, Err: fmt.Errorf("GOOS=%s", runtime.GOOS)}
}

// HelperMain refuses to run: the helper exists only on Linux.
func HelperMain(args []string) int {
	fmt.Fprintln(os.Stderr, "docket: the sandbox helper runs on Linux only")
	return 125
}

// launch is never reached off Linux: Run refuses first.
func (PerCall) launch(context.Context, call) (events.ExecOutcome, error) {
	return events.ExecOutcome{}, &UnavailableError{Missing: []string{"linux"}, Hint: hintPlatform, Err: fmt.Errorf("GOOS=%s", runtime.GOOS)}
}

// launch is never reached off Linux: Run refuses first.
func (s *Servers) launch(ctx context.Context, c call) (events.ExecOutcome, error) {
	return PerCall{}.launch(ctx, c)
}
