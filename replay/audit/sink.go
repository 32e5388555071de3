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

// Event hands the event to each sink that takes events.
func (t tee) Event(e *Event) error {
	var errs []error
	for _, s := range t {
		if es, ok := s.(EventSink); ok {
			errs = append(errs, es.Event(e))
		}
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
