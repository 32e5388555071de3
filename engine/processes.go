package engine

import (
	"fmt"
	"sort"
	"sync"

	"github.com/docket-engine/docket/events"
)

// procStatus is where the session's journal says a long-lived process is.
type procStatus int

const (
	procRunning procStatus = iota + 1
	procExited
	procLost
	procEvicted
	procClosed
)

// ProcessInfo is what the session knows of one long-lived process, from
// its own records: the call that started it, under which plan.
type ProcessInfo struct {
	ID     int
	CallID string
	Argv   []string
	Cwd    string
	Plan   events.SandboxPlan
	Tty    bool
	Status procStatus
}

// firstProcessID is the first session id handed out (Codex's ids start at
// 1000 too, drawn at random; Docket's follow the order of the calls, so
// replay hands out the same).
const firstProcessID = 1000

// procBook is the session's account of its long-lived processes, kept
// from the records it writes (and, on restore, reads): so it is the same in
// a live session, a resumed one and a replay.
type procBook struct {
	mu   sync.Mutex
	next int
	byID map[int]*ProcessInfo
	// order is the ids in the order they started, for eviction.
	order []int
}

func newProcBook() *procBook { return &procBook{next: firstProcessID, byID: map[int]*ProcessInfo{}} }

func (b *procBook) lookup(id int) (ProcessInfo, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.byID[id]
	if !ok {
		return ProcessInfo{}, false
	}
	return *p, true
}

// assign hands out the next session id for an exec_command about to start,
// and the oldest running processes it must end first to stay within
// MaxLiveProcesses.
func (b *procBook) assign() (id int, evicts []int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	live := 0
	for _, pid := range b.order {
		if b.byID[pid].Status == procRunning {
			live++
		}
	}
	for _, pid := range b.order {
		if live < MaxLiveProcesses {
			break
		}
		if b.byID[pid].Status == procRunning {
			evicts = append(evicts, pid)
			live--
		}
	}
	return b.next, evicts
}

// started records an exec_command's write-ahead record.
func (b *procBook) started(st events.ExecStarted) {
	pc := st.Process
	if pc == nil || pc.StartedBy != "" || pc.ID == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range pc.Evicts {
		if p, ok := b.byID[id]; ok && p.Status == procRunning {
			p.Status = procEvicted
		}
	}
	if _, dup := b.byID[pc.ID]; !dup {
		b.order = append(b.order, pc.ID)
	}
	b.byID[pc.ID] = &ProcessInfo{ID: pc.ID, CallID: st.CallID, Argv: st.Argv, Cwd: st.Cwd, Plan: st.Sandbox, Tty: pc.Tty, Status: procRunning}
	b.next = max(b.next, pc.ID+1)
}

// observed records what a call's outcome says of its process.
func (b *procBook) observed(st events.ExecStarted, out events.ExecOutcome) {
	if st.Process == nil {
		return
	}
	id := st.Process.ID
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.byID[id]
	if !ok || p.Status != procRunning {
		return
	}
	if out.Process == nil || !out.Process.Running {
		// It exited, never started, or the table no longer holds it.
		p.Status = procExited
	}
}

// runningIDs returns the running processes' ids in the order they
// started.
func (b *procBook) runningIDs() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []int
	for _, id := range b.order {
		if b.byID[id].Status == procRunning {
			ids = append(ids, id)
		}
	}
	return ids
}

// ended applies a process_ended record: the process is gone.
func (b *procBook) ended(v events.ProcessEnded) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.byID[v.ID]
	if !ok || p.Status != procRunning {
		return
	}
	switch v.How {
	case events.ProcessSessionClosed:
		p.Status = procClosed
	default:
		p.Status = procEvicted
	}
}

// closed marks id ended by the session's close.
func (b *procBook) closed(id int) {
	b.ended(events.ProcessEnded{ID: id, How: events.ProcessSessionClosed})
}

// loseAll marks every running process lost: the docket that held them is
// gone (a restore is always a new process).
func (b *procBook) loseAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.byID {
		if p.Status == procRunning {
			p.Status = procLost
		}
	}
}

// Processes lists the session's long-lived processes as its journal tells
// them, by session id.
func (s *Session) Processes() []ProcessInfo {
	b := s.procs
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]ProcessInfo, 0, len(b.byID))
	for _, p := range b.byID {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// String names a status for people.
func (s procStatus) String() string {
	switch s {
	case procRunning:
		return "running"
	case procExited:
		return "exited"
	case procLost:
		return "lost"
	case procEvicted:
		return "evicted"
	case procClosed:
		return "closed"
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// assignProcess gives an exec_command about to start its session id and
// the processes it must end first, each end journaled before the
// write-ahead record that carries it.
func (t *turn) assignProcess(cr *callRun, start *events.ExecStarted) error {
	if start.Process == nil || start.Process.StartedBy != "" {
		return nil
	}
	s := t.s
	id, evicts := s.procs.assign()
	pc := *start.Process
	pc.ID, pc.Evicts = id, evicts
	start.Process = &pc
	for _, e := range evicts {
		info, _ := s.procs.lookup(e)
		end := events.ProcessEnded{ID: e, CallID: info.CallID, How: events.ProcessEvicted,
			Reason: fmt.Sprintf("the session keeps at most %d processes running; call %s ends the oldest to start its own", MaxLiveProcesses, cr.call.ID)}
		if _, err := s.rec.append(cr.call.ID, end); err != nil {
			return err
		}
	}
	s.procs.started(*start)
	return nil
}

// classifiable: a sandbox denial is judged only on a process that ended
// in the call that started it; a write to a running process is not a
// command the sandbox could have refused.
func classifiable(start events.ExecStarted, out events.ExecOutcome) bool {
	if start.Process == nil {
		return true
	}
	return start.Process.StartedBy == "" && out.Process != nil && !out.Process.Running
}
