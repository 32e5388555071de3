package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// startNarrowed starts cmd (a root helper) from a new OS thread whose
// bounding set holds only proto.SetupCaps, so that the helper and every
// thread it will have start with no more. The thread is never unlocked:
// the Go runtime ends a locked thread with its goroutine, so no other
// goroutine ever runs on it. Narrowing is best effort; a helper that
// starts with more capabilities re-executes itself instead.
//
// The thread is also the helper's parent for PR_SET_PDEATHSIG, which fires
// when the thread that forked a process ends, not only when docket does:
// it stays alive until the returned release is called (once the helper
// has exited). release is safe to call when the start failed.
func startNarrowed(cmd *exec.Cmd) (release func(), err error) {
	errc := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		_ = narrowBoundingSet(proto.SetupCaps[:])
		errc <- cmd.Start()
		<-done
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }, <-errc
}

// narrowBoundingSet drops from the calling thread's bounding set every
// capability but keep. The parent calls it on a thread it then lets die.
func narrowBoundingSet(keep []uintptr) error {
	present, err := proto.BoundingSet()
	if err != nil {
		return err
	}
	for _, c := range present {
		if slices.Contains(keep, c) {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}
