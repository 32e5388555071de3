package audit

import (
	"context"
	"io"
	"math"
)

// The whole-report API the tests use: the CLI only streams (Stream with a
// writer Sink), so these live with the tests rather than in the package.

// Build audits the journal at path and returns the whole report. A damaged
// tail is not an error: the report's Damaged field says where reading
// stopped, and every record before it is audited.
func Build(path string, opts Options) (*Report, error) {
	var c collector
	if err := Stream(context.Background(), path, opts, &c); err != nil {
		return nil, err
	}
	return c.report, nil
}

// collector is the Sink behind Build: it keeps everything.
type collector struct {
	report *Report
	calls  []Call
	events []Event
}

func (c *collector) Event(e *Event) error {
	c.events = append(c.events, *e)
	return nil
}

func (c *collector) Begin(*Report) error { return nil }

func (c *collector) Call(call *Call) error {
	c.calls = append(c.calls, *call)
	return nil
}

func (c *collector) End(tail *Report) error {
	r := *tail
	r.Calls = c.calls
	r.Events = c.events
	if r.Calls == nil {
		r.Calls = []Call{}
	}
	c.report = &r
	return nil
}

// Emit drives sink with a built report, so a report renders exactly as a
// streamed audit would.
func Emit(r *Report, sink Sink) error {
	head := *r
	head.Calls, head.Events = nil, nil
	if err := sink.Begin(&head); err != nil {
		return err
	}
	next := 0 // the next event to hand over
	events := func(before uint64) error {
		es, ok := sink.(EventSink)
		for ; next < len(r.Events) && r.Events[next].Seq < before; next++ {
			if ok {
				if err := es.Event(&r.Events[next]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i := range r.Calls {
		// An event goes before the first call that began after it.
		if err := events(firstSeq(&r.Calls[i])); err != nil {
			return err
		}
		if err := sink.Call(&r.Calls[i]); err != nil {
			return err
		}
	}
	if err := events(math.MaxUint64); err != nil {
		return err
	}
	return sink.End(&head)
}

// firstSeq is the seq of a call's first recorded step.
func firstSeq(c *Call) uint64 {
	first := uint64(math.MaxUint64)
	for _, t := range c.Transitions {
		first = min(first, t.Seq)
	}
	if c.Refused != nil {
		first = min(first, c.Refused.Seq)
	}
	return first
}

// WriteHTML writes a built report as NewHTMLWriter would stream it.
func WriteHTML(w io.Writer, r *Report) error { return Emit(r, NewHTMLWriter(w)) }

// WriteJSON writes a built report as NewJSONWriter would stream it.
func WriteJSON(w io.Writer, r *Report) error { return Emit(r, NewJSONWriter(w)) }

// WriteText writes a built report as NewTextWriter would stream it.
func WriteText(w io.Writer, r *Report, opts Options) error {
	return Emit(r, NewTextWriter(w, opts))
}
