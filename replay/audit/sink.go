package audit

import "errors"

// Sink receives an audit as it is produced: Begin once with the header
// (session, journal, policy, rules), Call for each call in the order the
// calls began, End once with the trailer (amendments, violations, damage)
// filled in. The Report passed to Begin and End is the same value.
type Sink interface {
	Begin(head *Report) error
	Call(c *Call) error
	End(tail *Report) error
}

// collector is the Sink behind Build: it keeps everything.
type collector struct {
	report *Report
	calls  []Call
}

func (c *collector) Begin(*Report) error { return nil }

func (c *collector) Call(call *Call) error {
	c.calls = append(c.calls, *call)
	return nil
}

func (c *collector) End(tail *Report) error {
	r := *tail
	r.Calls = c.calls
	if r.Calls == nil {
		r.Calls = []Call{}
	}
	c.report = &r
	return nil
}

// Tee returns a Sink that hands everything to each of sinks in turn.
func Tee(sinks ...Sink) Sink { return tee(sinks) }

type tee []Sink

func (t tee) Begin(h *Report) error {
	var errs []error
	for _, s := range t {
		errs = append(errs, s.Begin(h))
	}
	return errors.Join(errs...)
}

func (t tee) Call(c *Call) error {
	var errs []error
	for _, s := range t {
		errs = append(errs, s.Call(c))
	}
	return errors.Join(errs...)
}

func (t tee) End(r *Report) error {
	var errs []error
	for _, s := range t {
		errs = append(errs, s.End(r))
	}
	return errors.Join(errs...)
}

// Emit drives sink with a built report, so a report renders exactly as a
// streamed audit would.
func Emit(r *Report, sink Sink) error {
	head := *r
	head.Calls = nil
	if err := sink.Begin(&head); err != nil {
		return err
	}
	for i := range r.Calls {
		if err := sink.Call(&r.Calls[i]); err != nil {
			return err
		}
	}
	return sink.End(&head)
}
