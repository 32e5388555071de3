package journal

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/events"
)

// ErrNotJournal is wrapped when a file is not a Docket journal at all.
var ErrNotJournal = errors.New("not a docket journal")

// InUseError is returned when another process holds the session open.
type InUseError struct {
	SessionID string
	Path      string
	PID       int // 0 when the holder could not be identified
}

func (e *InUseError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("session %s is in use by pid %d (%s)", e.SessionID, e.PID, e.Path)
	}
	return fmt.Sprintf("session %s is in use by another process (%s)", e.SessionID, e.Path)
}

// DamagedError says that a journal file is damaged and how far it is good.
// Records up to and including LastGoodSeq were read intact.
type DamagedError struct {
	Path        string
	LastGoodSeq uint64
	Err         error

	salvaged map[uint64]events.Record // what the page scan found, for Scan
	limit    uint64                   // the last seq Scan knew committed, 0 if none
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("journal %s is damaged after seq %d: %v", e.Path, e.LastGoodSeq, e.Err)
}

// Unwrap returns the underlying cause.
func (e *DamagedError) Unwrap() error { return e.Err }

// NotJournalError is returned for a path that is not a journal: a directory,
// an empty file, or a foreign file.
type NotJournalError struct {
	Path   string
	Reason string
}

func (e *NotJournalError) Error() string {
	return fmt.Sprintf("%s is not a docket journal: %s", e.Path, e.Reason)
}

// Unwrap lets errors.Is(err, ErrNotJournal) match.
func (e *NotJournalError) Unwrap() error { return ErrNotJournal }
