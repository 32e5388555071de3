package main

import (
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/egress"
)

// noticingJournal is the egress proxy's journal for a session whose
// records should also be shown: each network record, once appended, is
// handed to the session's observer as a NoticeNetwork (exec --json
// --json-extensions, the human renderer, chat). The journal stays the
// authority: a record that could not be written is not shown.
type noticingJournal struct {
	j         egress.Journal
	obs       engine.Observer
	sessionID string
}

// newNoticingJournal wraps j; a nil observer shows nothing.
func newNoticingJournal(j egress.Journal, obs engine.Observer, sessionID string) egress.Journal {
	if obs == nil {
		return j
	}
	return &noticingJournal{j: j, obs: obs, sessionID: sessionID}
}

// AppendDurable appends and commits, then shows the record.
func (n *noticingJournal) AppendDurable(at time.Time, callID string, body any) (events.Record, error) {
	r, err := n.j.AppendDurable(at, callID, body)
	if err == nil {
		n.show(r, body)
	}
	return r, err
}

// Append appends for the next commit, then shows the record.
func (n *noticingJournal) Append(at time.Time, callID string, body any) (events.Record, error) {
	r, err := n.j.Append(at, callID, body)
	if err == nil {
		n.show(r, body)
	}
	return r, err
}

func (n *noticingJournal) show(r events.Record, body any) {
	nt := engine.Notice{Type: engine.NoticeNetwork, SessionID: n.sessionID, CallID: r.CallID, Seq: r.Seq}
	switch v := body.(type) {
	case events.NetworkDecision:
		nt.NetworkDecision = &v
	case *events.NetworkDecision:
		nt.NetworkDecision = v
	case events.NetworkConnection:
		nt.NetworkConnection = &v
	case *events.NetworkConnection:
		nt.NetworkConnection = v
	default:
		return
	}
	n.obs.Notify(nt)
}
