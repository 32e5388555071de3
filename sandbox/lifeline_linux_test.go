package sandbox

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
)

// TestParentDeathSignalIgnoresThreadChurn: PR_SET_PDEATHSIG fires when the
// thread that forked a process ends, and the Go runtime ends a thread
// whenever a goroutine locked to it returns. runProcess holds its thread
// until the process is reaped, so commands started while other goroutines
// churn locked threads are never killed by it. (With the hold removed,
// 27 of 192 commands over three runs died here with SIGKILL.)
func TestParentDeathSignalIgnoresThreadChurn(t *testing.T) {
	stop := make(chan struct{})
	churned := make(chan struct{})
	go func() {
		defer close(churned)
		for {
			select {
			case <-stop:
				return
			default:
			}
			done := make(chan struct{})
			go func() { runtime.LockOSThread(); close(done) }() // its thread exits with it
			<-done
		}
	}()
	defer func() { close(stop); <-churned }()
	const n = 64
	var wg sync.WaitGroup
	outs := make([]events.ExecOutcome, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = Run(context.Background(), Request{Argv: []string{"bash", "-c", "sleep 0.2; echo ok"},
				Plan: events.SandboxPlan{Mode: ModeNone}, Timeout: 5 * time.Minute})
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || outs[i].Signal != "" || outs[i].ExitCode != 0 || outs[i].Stdout != "ok\n" {
			t.Errorf("command %d: err %v, signal %q, exit %d, stdout %q", i, errs[i], outs[i].Signal, outs[i].ExitCode, outs[i].Stdout)
		}
	}
}
