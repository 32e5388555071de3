//go:build !linux

package proto

// Tracer is the start-up trace of trace_linux.go; elsewhere there is no
// sandboxed start to trace.
type Tracer struct{}
