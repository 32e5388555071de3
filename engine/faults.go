package engine

// Faults is told when the engine passes a named point, so that a crash test
// can kill the process exactly there. Points: "after:<event>" once a
// transition of that event is appended, "before_commit" and "after_commit"
// around every durable commit, "while_running" once a process has been
// started.
//
// An implementation MUST return promptly and MUST NOT call back into the
// engine; it may be called with the engine's record lock held and from several
// goroutines at once. It MAY end the process (that is its purpose).
//
// Production builds set none: the docket binary arms hooks from the
// environment (DOCKET_CRASH_AT, DOCKET_FAULT_LOG) only when built with the
// docketfault build tag (cmd/docket/faults_docketfault.go).
type Faults interface {
	Hit(point string)
}

type noFaults struct{}

func (noFaults) Hit(string) {}
