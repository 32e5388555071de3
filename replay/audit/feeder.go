package audit

import (
	"errors"

	"github.com/docket-engine/docket/events"
)

// Feeder audits records handed to it one at a time, in seq order: a live
// session's records as they are committed, or a journal being re-sent. It
// hands each finished call to the sink as Stream does. It is not safe for
// concurrent use.
type Feeder struct{ a *auditor }

// NewFeeder starts an audit of the journal at path (used only for the
// report's header) whose records will come through Feed.
func NewFeeder(path string, opts Options, sink Sink) *Feeder {
	a := newAuditor(path, opts, sink)
	a.scanned = true
	return &Feeder{a: a}
}

// Feed audits one record. A record whose body does not decode hides only
// itself, as in Stream; other errors are the sink's.
func (f *Feeder) Feed(r events.Record) error {
	err := f.a.feed(r)
	var ds *decodeStop
	if errors.As(err, &ds) {
		return nil
	}
	return err
}

// End emits the calls still open as they stand (pending) and the trailer.
func (f *Feeder) End() error { return f.a.end(nil) }
