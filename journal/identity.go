package journal

import (
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/google/uuid"
)

// IdentityError says that a journal file is not the session its name says:
// the file was replaced, copied or linked from another session's. Reading
// it as the named session would show (and resume) someone else's calls.
type IdentityError struct {
	Path string
	// Named is the session id in the file's name, Recorded the one the
	// journal was created for.
	Named, Recorded string
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("journal %s is session %s's, not session %s as its name says: the file was replaced by (or linked to) another session's journal",
		e.Path, e.Recorded, e.Named)
}

// checkIdentity compares the session id a journal's name gives with the one
// recorded in it. A name that is not a session id (a journal copied to
// report.docket and given by path) claims nothing, so nothing is checked.
func checkIdentity(path, named, recorded string) error {
	if recorded == "" || named == recorded {
		return nil
	}
	if _, err := uuid.Parse(named); err != nil || len(named) != 36 {
		return nil
	}
	return &IdentityError{Path: path, Named: named, Recorded: recorded}
}

// checkFirstRecord checks the session_started record's id against the
// file's name; any other record passes.
func checkFirstRecord(path string, r events.Record) error {
	if r.Seq != 1 || r.Kind != events.KindSessionStarted {
		return nil
	}
	body, err := r.Decode()
	if err != nil {
		return nil // the caller's decode reports what is damaged
	}
	if s, ok := body.(*events.SessionStarted); ok {
		return checkIdentity(path, idFromPath(path), s.SessionID)
	}
	return nil
}

// firstRecordSessionID is the session id the journal's session_started
// record gives: "" when that record cannot be read.
func (j *Journal) firstRecordSessionID() string {
	var id string
	_ = j.each(1, 1, func(r events.Record) error { // unreadable: no id, and the caller keeps its own error
		if r.Kind != events.KindSessionStarted {
			return nil
		}
		if body, err := r.Decode(); err == nil {
			if s, ok := body.(*events.SessionStarted); ok {
				id = s.SessionID
			}
		}
		return nil
	})
	return id
}
