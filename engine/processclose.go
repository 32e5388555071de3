package engine

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/events"
)

// ProcessKiller is a Runner that holds long-lived processes
// (exec_command): EndProcesses ends each through it. A runner without
// one (replay's) holds none, and the records are written all the same.
type ProcessKiller interface {
	// KillProcess ends the process of session id id and waits for it; an
	// id it does not hold is no error.
	KillProcess(id int)
}

// KillProcess ends a long-lived process the runner's table holds.
func (r *ProcessRunner) KillProcess(id int) {
	if r.Processes != nil {
		r.Processes.Kill(id)
	}
}

// pointEndingProcess is the fault point before each process's end is
// appended at the close: a crash or a journal write error there leaves the
// ends recorded so far, a prefix of the close's records.
const pointEndingProcess = "ending_process"

// EndProcesses ends every long-lived process the session's journal says is
// running, killing it through the runner, and records each end
// (process_ended, session_closed) durably: the session is closing, and
// without the record its journal would leave them running, and a resume
// would call them lost to a crash. The caller closes the journal after;
// no turn may be running. It returns the ids whose end it recorded.
//
// The close cannot be all or nothing: a write error after the first end
// leaves that end buffered, and closing the journal commits it. So once
// an end fails to be recorded, the rest are still killed but no longer
// recorded: the journal holds the ends in order up to a point, which
// verify replay accepts as a close cut short, and a process past it reads
// as running when the journal ends (a resume calls it lost), its end
// unknown.
func (s *Session) EndProcesses() ([]int, error) {
	var ended []int
	var failed error
	for _, id := range s.procs.runningIDs() {
		info, ok := s.procs.lookup(id)
		if !ok {
			continue
		}
		if k, ok := s.runner.(ProcessKiller); ok {
			k.KillProcess(id)
		}
		if failed != nil {
			continue
		}
		if fc, ok := s.cfg.Faults.(FaultCommits); ok && fc.CommitAt(pointEndingProcess) {
			if err := s.rec.sync(); err != nil {
				failed = fmt.Errorf("engine: recording the ends of processes %v: %w", ended, err)
				continue
			}
		}
		s.cfg.Faults.Hit(pointEndingProcess)
		end := events.ProcessEnded{ID: id, CallID: info.CallID, How: events.ProcessSessionClosed,
			Reason: "the session closed while it ran, and docket ended it"}
		if _, err := s.rec.append(info.CallID, end); err != nil {
			failed = fmt.Errorf("engine: recording the end of process %d: %w", id, err)
			continue
		}
		s.procs.closed(id)
		ended = append(ended, id)
	}
	if len(ended) == 0 {
		return nil, failed
	}
	if err := s.rec.sync(); err != nil {
		return ended, errors.Join(failed, fmt.Errorf("engine: recording the end of processes %v: %w", ended, err))
	}
	return ended, failed
}
