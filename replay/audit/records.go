package audit

import (
	"context"
	"errors"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// Records audits records already read, as Stream audits a file: for a
// session still open (the interactive /audit), whose journal file its own
// writer holds locked. path names the journal in the report.
func Records(ctx context.Context, path string, recs []events.Record, opts Options, sink Sink) error {
	a := newAuditor(path, opts, sink)
	a.scanned = true
	var undecodable []journal.Gap
	rep := &journal.ReadReport{Path: path}
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.Read++
		rep.Last = r.Seq
		err := a.feed(r)
		var ds *decodeStop
		if errors.As(err, &ds) {
			undecodable = append(undecodable, journal.Gap{From: r.Seq, To: r.Seq, Why: ds.err.Error()})
			continue
		}
		if err != nil {
			return err
		}
	}
	return a.end(damageOfRead(rep, undecodable))
}
