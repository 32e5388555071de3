package audit

import (
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
)

// Process is the story of one long-lived process (exec_command): the call
// that started it and under which plan, every input written to it and by
// which call, what each call collected, and how it ended.
type Process struct {
	ID       int      `json:"id"`
	CallID   string   `json:"started_by"`
	Seq      uint64   `json:"seq"`
	Command  []string `json:"command"`
	Sandbox  string   `json:"sandbox"`
	Tty      bool     `json:"tty,omitempty"`
	Steps    []Step   `json:"steps,omitempty"`
	Ended    string   `json:"ended"`
	ExitCode *int     `json:"exit_code,omitempty"`
}

// Step is one call's turn with a process: a write (Chars, empty for a
// poll) and what came back.
type Step struct {
	CallID string `json:"call_id"`
	Seq    uint64 `json:"seq"`
	Chars  string `json:"chars"`
	Bytes  int    `json:"output_bytes"`
	Result string `json:"result"`
}

// processBook follows the session's processes through its records.
type processBook struct {
	byID  map[int]*Process
	order []int
	// pending maps a call to the process it started or wrote to, until
	// its outcome comes.
	pending map[string]int
	// closedAt is the seq of the first end the session's close recorded
	// (session_closed) since the last resume, 0 for none.
	closedAt uint64
}

// stillRunning is what a process with no recorded end says.
const stillRunning = "running when the journal ends"

func (b *processBook) get(id int) *Process {
	if b.byID == nil {
		b.byID, b.pending = map[int]*Process{}, map[string]int{}
	}
	return b.byID[id]
}

func (b *processBook) started(r events.Record, v *events.ExecStarted) {
	pc := v.Process
	if pc == nil || pc.ID == 0 {
		return
	}
	p := b.get(pc.ID)
	if pc.StartedBy == "" {
		if p != nil {
			return
		}
		p = &Process{ID: pc.ID, CallID: v.CallID, Seq: r.Seq, Command: v.Argv, Sandbox: string(v.Sandbox.Mode), Tty: pc.Tty, Ended: stillRunning}
		b.byID[pc.ID] = p
		b.order = append(b.order, pc.ID)
	} else if p != nil {
		p.Steps = append(p.Steps, Step{CallID: v.CallID, Seq: r.Seq, Chars: pc.Chars, Result: "no outcome recorded"})
	}
	if p != nil {
		b.pending[v.CallID] = pc.ID
	}
}

func (b *processBook) outcome(r events.Record, v *events.ExecOutcome) {
	if b.byID == nil {
		return
	}
	id, ok := b.pending[v.CallID]
	if !ok {
		return
	}
	delete(b.pending, v.CallID)
	p := b.byID[id]
	result := "still running"
	switch {
	case v.Process == nil && v.Error != "":
		result = "not started: " + v.Error
		p.Ended = result
	case v.SandboxError != "":
		result = "not started: " + v.SandboxError
		p.Ended = result
	case v.Error != "":
		result = "failed: " + v.Error
	case v.Process != nil && !v.Process.Running:
		code := v.ExitCode
		result = fmt.Sprintf("exited with code %d", code)
		p.Ended, p.ExitCode = fmt.Sprintf("exited with code %d (seen by call %s, seq %d)", code, v.CallID, r.Seq), &code
	}
	if n := len(p.Steps); n > 0 && p.Steps[n-1].CallID == v.CallID {
		p.Steps[n-1].Result, p.Steps[n-1].Bytes = result, len(v.Output)
	} else if p.CallID == v.CallID {
		p.Steps = append([]Step{{CallID: v.CallID, Seq: r.Seq, Result: result, Bytes: len(v.Output)}}, p.Steps...)
	}
}

func (b *processBook) ended(r events.Record, v *events.ProcessEnded) {
	if v.How == events.ProcessSessionClosed && b.closedAt == 0 {
		b.closedAt = r.Seq
	}
	if p := b.get(v.ID); p != nil && p.ExitCode == nil {
		p.Ended = fmt.Sprintf("%s at seq %d: %s", v.How, r.Seq, v.Reason)
	}
}

// resumed: the docket before was gone, and its running processes with it.
func (b *processBook) resumed(r events.Record) {
	b.cutShort()
	for _, id := range b.order {
		if p := b.byID[id]; p.ExitCode == nil && p.Ended == stillRunning {
			p.Ended = fmt.Sprintf("lost: the docket that ran it stopped before the resume at seq %d; it was not run again", r.Seq)
		}
	}
	b.closedAt = 0
}

// cutShort names the processes a close that recorded the end of others
// left without one: the close was cut short (a journal write error, a
// crash), and their end is unknown.
func (b *processBook) cutShort() {
	if b.closedAt == 0 {
		return
	}
	for _, id := range b.order {
		if p := b.byID[id]; p.ExitCode == nil && p.Ended == stillRunning {
			p.Ended = fmt.Sprintf("end unknown: the session's close (from seq %d) recorded the end of other processes, "+
				"not this one's: the close was cut short (a journal write error or a crash)", b.closedAt)
		}
	}
}

func (b *processBook) list() []Process {
	b.cutShort()
	out := make([]Process, 0, len(b.order))
	for _, id := range b.order {
		out = append(out, *b.byID[id])
	}
	return out
}

// processes prints each long-lived process as one story. Every string
// came from the model or the process, so each goes through safetext.
func (t *textWriter) processes(ps []Process) {
	if len(ps) == 0 {
		return
	}
	t.printf("\nlong-lived processes\n")
	for _, p := range ps {
		tty := "pipes"
		if p.Tty {
			tty = "a pty"
		}
		t.printf("  session %d: started by call %s (seq %d) under %s, with %s: %s\n", p.ID, safetext.Line(p.CallID), p.Seq, orDash(p.Sandbox), tty, safetext.Join(p.Command))
		for _, s := range p.Steps {
			what := "polled"
			if s.Chars != "" {
				what = "wrote " + safetext.Quote(s.Chars)
			}
			t.printf("    call %s (seq %d) %s: %s, %d bytes back\n", safetext.Line(s.CallID), s.Seq, what, safetext.Line(s.Result), s.Bytes)
		}
		t.printf("    ended: %s\n", safetext.Line(p.Ended))
	}
}

// processes writes each long-lived process as one story, escaped.
func (h *htmlWriter) processes(ps []Process) {
	if len(ps) == 0 {
		return
	}
	h.put("<section class=\"processes\"><h2>Long-lived processes</h2>\n")
	for _, p := range ps {
		tty := "pipes"
		if p.Tty {
			tty = "a pty"
		}
		h.put("<h3>session %d</h3><p>started by call %s (#%d) under %s, with %s: <code>%s</code></p><ul>", p.ID, esc(p.CallID), p.Seq,
			esc(orDash(p.Sandbox)), tty, esc(safetext.Join(p.Command)))
		for _, s := range p.Steps {
			what := "polled"
			if s.Chars != "" {
				what = "wrote <code>" + esc(safetext.Quote(s.Chars)) + "</code>"
			}
			h.put("<li>call %s (#%d) %s: %s, %d bytes back</li>", esc(s.CallID), s.Seq, what, esc(s.Result), s.Bytes)
		}
		h.put("</ul><p>ended: %s</p>\n", esc(p.Ended))
	}
	h.put("</section>\n")
}
