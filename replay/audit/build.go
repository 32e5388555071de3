package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// CallNotFoundError is returned when the call an audit asks for is not in
// the journal.
type CallNotFoundError struct {
	CallID string
	Path   string
}

func (e *CallNotFoundError) Error() string {
	return fmt.Sprintf("call %q is not in journal %s", e.CallID, e.Path)
}

// Stream audits the journal at path, handing each call to sink as soon as
// it is finished. Memory is bounded by the calls open at once, not by the
// journal's length. With opts.CallID the call is read through the call
// index; a journal too damaged to open falls back to a salvaging scan.
func Stream(ctx context.Context, path string, opts Options, sink Sink) error {
	if opts.CallID != "" {
		err := streamCall(ctx, path, opts, sink)
		if !errors.Is(err, errNoIndex) {
			return err
		}
	}
	a := newAuditor(path, opts, sink)
	a.scanned = true
	var undecodable []journal.Gap
	rep, err := journal.ScanAll(path, func(r events.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := a.feed(r)
		var ds *decodeStop
		if errors.As(err, &ds) {
			// One record whose body does not decode hides only itself.
			undecodable = append(undecodable, journal.Gap{From: r.Seq, To: r.Seq, Why: ds.err.Error()})
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	if opts.CallID != "" && len(a.order) == 0 && a.seen == 0 {
		return &CallNotFoundError{CallID: opts.CallID, Path: path}
	}
	return a.end(damageOfRead(rep, undecodable))
}

// damageOfRead describes what a salvaging read could not read, nil when
// it read everything intact.
func damageOfRead(rep *journal.ReadReport, undecodable []journal.Gap) *Damage {
	if rep.Err == nil && len(rep.Gaps) == 0 && len(undecodable) == 0 {
		return nil
	}
	gaps := append(slices.Clone(rep.Gaps), undecodable...)
	slices.SortFunc(gaps, func(a, b journal.Gap) int { return cmp.Compare(a.From, b.From) })
	d := &Damage{Read: rep.Read - len(undecodable), Last: rep.Last, Unread: gaps, LastGoodSeq: rep.Last}
	if len(gaps) > 0 {
		d.LastGoodSeq = gaps[0].From - 1
		d.Error = gaps[0].Why
	}
	if rep.Err != nil {
		var de *journal.DamagedError
		if errors.As(rep.Err, &de) {
			d.Error = de.Err.Error()
		} else {
			d.Error = rep.Err.Error()
		}
	}
	return d
}

// errNoIndex says the journal cannot be opened for indexed reads.
var errNoIndex = errors.New("no usable call index")

// streamCall audits one call through the call index: the session header,
// the model response that made the call (found by a bounded look back),
// and the call's own records. Nothing else is read.
func streamCall(ctx context.Context, path string, opts Options, sink Sink) error {
	j, err := journal.OpenReadOnly(path)
	if err != nil {
		var inUse *journal.InUseError
		if errors.As(err, &inUse) {
			return err
		}
		return errNoIndex
	}
	defer func() { _ = j.Close() }() // read-only: closing loses nothing
	a := newAuditor(path, opts, sink)
	head, herr := j.Range(1, 1)
	if len(head) == 1 {
		if err := a.feed(head[0]); err != nil {
			return err
		}
	}
	recs, cerr := j.Call(opts.CallID)
	if len(recs) == 0 {
		if cerr != nil {
			return errNoIndex
		}
		if herr != nil {
			return errNoIndex
		}
		return &CallNotFoundError{CallID: opts.CallID, Path: path}
	}
	if resp, ok := responseBefore(j, opts.CallID, recs[0].Seq); ok {
		if err := a.feed(resp); err != nil {
			return err
		}
	}
	var ferr error
	for _, r := range recs {
		if ferr = ctx.Err(); ferr != nil {
			return ferr
		}
		if ferr = a.feed(r); ferr != nil {
			break
		}
	}
	if ferr == nil {
		ferr = cerr
	}
	damage, err := damageOf(ferr)
	if err != nil {
		return err
	}
	return a.end(damage)
}

// lookBack bounds how far before a call's first record the model response
// that made it is searched for.
const lookBack = 4096

// responseBefore finds the model response holding call id among the
// records just before seq, reading windows that grow backwards.
func responseBefore(j *journal.Journal, id string, seq uint64) (events.Record, bool) {
	hi := seq - 1
	for span := uint64(64); hi >= 1 && seq-hi <= lookBack; span *= 4 {
		lo := uint64(1)
		if hi > span {
			lo = hi - span + 1
		}
		recs, err := j.Range(lo, hi)
		for i := len(recs) - 1; i >= 0; i-- {
			if recs[i].Kind != events.KindModelResponse {
				continue
			}
			body, derr := recs[i].Decode()
			if derr != nil {
				continue
			}
			for _, it := range body.(*events.ModelResponse).Items {
				if it.CallID == id {
					return recs[i], true
				}
			}
		}
		if err != nil || lo == 1 {
			break
		}
		hi = lo - 1
	}
	return events.Record{}, false
}

// damageOf separates a damaged tail, which the report describes, from
// errors that stop the audit.
func damageOf(err error) (*Damage, error) {
	if err == nil {
		return nil, nil
	}
	var de *journal.DamagedError
	if errors.As(err, &de) {
		cause := de.Err
		if cause == nil {
			cause = de
		}
		return &Damage{LastGoodSeq: de.LastGoodSeq, Error: cause.Error()}, nil
	}
	var ds *decodeStop
	if errors.As(err, &ds) {
		return &Damage{LastGoodSeq: ds.seq - 1, Error: ds.Error()}, nil
	}
	return nil, err
}
