//go:build !linux

package sandbox

// tracer is the start-up trace of sandbox/internal/proto/trace_linux.go; elsewhere there is no
// sandboxed start to trace.
type tracer struct{}
