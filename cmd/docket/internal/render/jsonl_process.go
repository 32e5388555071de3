package render

import (
	"github.com/docket-engine/docket/engine"
)

// A long-lived process (exec_command) is one command_execution item for
// its whole life, as Codex 0.169+ shows it: started by exec_command,
// completed (with everything it printed and its exit code) by whichever
// call saw it exit, possibly a later write_stdin; write_stdin calls have
// no items of their own. A process still running when the stream ends
// leaves its item in progress, as Codex's does.

// processStarted swallows write_stdin's started notice.
func (j *JSONL) processStarted(n engine.Notice) bool {
	return n.Tool == engine.WriteStdinName
}

// processCompleted handles the completed notices of exec_command calls
// that leave their process running and of write_stdin calls.
func (j *JSONL) processCompleted(n engine.Notice) bool {
	switch {
	case n.Tool == engine.ExecCommandName && n.Process != nil && n.Process.Running:
		it, ok := j.calls[n.CallID]
		if !ok {
			return false
		}
		delete(j.calls, n.CallID)
		it.output.Reset()
		it.output.WriteString(n.Text[:min(len(n.Text), maxAggregated)])
		if j.procs == nil {
			j.procs = map[int]*openItem{}
		}
		j.procs[n.Process.ID] = it
		return true
	case n.Tool == engine.WriteStdinName:
		if n.Process == nil {
			return true
		}
		it, ok := j.procs[n.Process.ID]
		if !ok {
			return true
		}
		if room := maxAggregated - it.output.Len(); room > 0 {
			it.output.WriteString(n.Text[:min(len(n.Text), room)])
		}
		if n.Process.Running {
			return true
		}
		delete(j.procs, n.Process.ID)
		done := it.start
		done.ExitCode = n.ExitCode
		status := engine.StatusCompleted
		if n.ExitCode != 0 {
			status = engine.StatusFailed
		}
		j.emit(itemEvent{Type: EventItemCompleted, Item: callItem(done, it.id, it.output.String(), status, j.ext)})
		return true
	}
	return false
}
