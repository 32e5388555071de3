package sandbox

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
// The helper writes to a descriptor docket passes it (traceFD) rather
// than opening the file: a descriptor open for writing on a mount of its
// own namespace would make the mount read-only fail (EBUSY), while docket's
// descriptor belongs to docket's mount. The helper marks it close-on-exec,
// so the command never gets it; a command does see the variable itself,
// like the rest of docket's environment.
const TraceEnv = "DOCKET_SANDBOX_TRACE"

// traceFD is the helper's descriptor for the trace file, after the
// protocol's three (channels_linux.go), present only when Spec.Trace.
const traceFD = binaryFD + 1

// tracer appends phase stamps to the trace file; a nil tracer does nothing.
type tracer struct {
	f   *os.File
	pid int
}

// openTracer opens the trace file TraceEnv names, or returns nil.
func openTracer() *tracer {
	path := os.Getenv(TraceEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil // a trace is a measurement aid: never a reason to fail a run
	}
	return &tracer{f: f, pid: os.Getpid()}
}

// helperTracer is the helper's tracer on traceFD, or nil when the spec
// does not say docket passed one.
func helperTracer(spec Spec) *tracer {
	if !spec.Trace {
		return nil
	}
	unix.CloseOnExec(traceFD)
	return &tracer{f: os.NewFile(traceFD, "trace"), pid: os.Getpid()}
}

// mark records that phase ended now.
func (t *tracer) mark(phase string) {
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

// close closes the trace file.
func (t *tracer) close() {
	if t == nil {
		return
	}
	_ = t.f.Close() // a trace: losing its last line loses nothing that matters
}

// dupCloexec duplicates f's descriptor, close-on-exec.
func dupCloexec(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}
