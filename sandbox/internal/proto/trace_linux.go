package proto

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// TraceEnv names the environment variable that turns on the start-up
// trace: when it names a file, Run (in docket) and the helper (in the
// sandbox) append one line per phase of a sandboxed start to it, "pid
// phase monotonic-ns", which scripts/benchsandbox turns into a per-phase
// breakdown. Unset, the trace costs one getenv per call and per helper.
// The helper writes to a descriptor docket passes it (TraceFD) rather
// than opening the file: a descriptor open for writing on a mount of its
// own namespace would make the mount read-only fail (EBUSY), while docket's
// descriptor belongs to docket's mount. The helper marks it close-on-exec,
// so the command never gets it; a command does see the variable itself,
// like the rest of docket's environment.
const TraceEnv = "DOCKET_SANDBOX_TRACE"

// TraceFD is the helper's descriptor for the trace file, after the
// protocol's three (fds.go), present only when Spec.Trace.
const TraceFD = BinaryFD + 1

// Tracer appends phase stamps to the trace file; a nil Tracer does nothing.
type Tracer struct {
	f   *os.File
	pid int
}

// OpenTracer opens the trace file TraceEnv names, or returns nil.
func OpenTracer() *Tracer {
	path := os.Getenv(TraceEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil // a trace is a measurement aid: never a reason to fail a run
	}
	return &Tracer{f: f, pid: os.Getpid()}
}

// HelperTracer is the helper's Tracer on TraceFD, or nil when the spec
// does not say docket passed one.
func HelperTracer(spec Spec) *Tracer {
	if !spec.Trace {
		return nil
	}
	unix.CloseOnExec(TraceFD)
	return &Tracer{f: os.NewFile(TraceFD, "trace"), pid: os.Getpid()}
}

// Mark records that phase ended now.
func (t *Tracer) Mark(phase string) {
	if t == nil {
		return
	}
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return
	}
	// One write per line with O_APPEND: lines of docket and the helper do
	// not interleave mid-line.
	_, _ = fmt.Fprintf(t.f, "%d %s %d\n", t.pid, phase, ts.Nano())
}

// Close closes the trace file.
func (t *Tracer) Close() {
	if t == nil {
		return
	}
	_ = t.f.Close() // a trace: losing its last line loses nothing that matters
}

// DupCloexec duplicates f's descriptor, close-on-exec.
func DupCloexec(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// File is the trace file, for docket to pass to the helper at TraceFD.
func (t *Tracer) File() *os.File { return t.f }
