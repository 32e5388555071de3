package engine

// Faults is told when the engine passes a named point, so that a crash test
// can kill the process exactly there. Points: "after:<event>" once a
// transition of that event is appended, "before_commit" and "after_commit"
// around every durable commit, "while_running" once a process has been
// started, "after:decision" once an approval's answer is appended and
// before anything acts on it, "after:compaction" once a compaction record is
// durable, "sending_request" once a model request is journaled (and
// committed, if it had to be) and before it is sent: a kill there is a kill
// while the model thinks; "ending_process" at a session's close, once a
// long-lived process is killed and before its end is appended.
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

// pointSendingRequest is the fault point just before a model request is
// sent. Its record and, after an executed call, that call's outcome are
// usually not durable yet there (recorder): they ride on the next call's
// write-ahead commit.
const pointSendingRequest = "sending_request"

type noFaults struct{}

func (noFaults) Hit(string) {}

// FaultCommits is what a Faults may also implement to force an
// interleaving: at a point where CommitAt says so, the engine first makes
// everything appended so far durable, as a commit of another call running
// in parallel would. Crash tests use it to leave, say, a journaled answer
// whose call had not moved yet. Production builds have no Faults at all.
type FaultCommits interface {
	CommitAt(point string) bool
}
