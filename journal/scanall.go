package journal

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/internal/boltfile"
)

// Gap is a run of seqs that a salvaging read could not return.
type Gap struct {
	From uint64 `json:"from"`
	// To is the last seq of the run; 0 when the journal does not say how
	// far it went.
	To uint64 `json:"to"`
	// Why says what was found there: damaged records and the pages that
	// hold them, or nothing at all.
	Why string `json:"why"`
}

// String is "seq N" or "seqs N to M" with the reason.
func (g Gap) String() string {
	switch {
	case g.To == 0:
		return fmt.Sprintf("seqs from %d on (%s)", g.From, g.Why)
	case g.To == g.From:
		return fmt.Sprintf("seq %d (%s)", g.From, g.Why)
	}
	return fmt.Sprintf("seqs %d to %d (%s)", g.From, g.To, g.Why)
}

// ReadReport says how much of a journal ScanAll read, and what it could not.
type ReadReport struct {
	Path string
	// Read is how many records were handed to the callback.
	Read int
	// Last is the highest seq the journal says exists: the committed seq,
	// a lost commit's end, or the highest seq found when the file says
	// neither.
	Last uint64
	// Gaps are the runs of seqs up to Last that could not be read.
	Gaps []Gap
	// Err is the damage that stopped the ordered read; nil for an intact
	// journal.
	Err error
}

// Complete reports whether every record up to Last was read (salvaged
// past damage, perhaps: Err still says what was damaged).
func (r *ReadReport) Complete() bool { return len(r.Gaps) == 0 }

// maxGapWhy bounds how many damaged records one gap's reason lists.
const maxGapWhy = 4

// ScanAll reads every intact record of the journal at path in seq order and
// hands each to fn, past any damage: where Scan stops at the first gap,
// ScanAll goes on with the intact records a raw page scan finds after it,
// and the report lists every run of seqs it could not read and why. It is
// what an audit uses, so that one bad record hides only itself. The error
// is fn's own, or one that left nothing to read (*NotJournalError,
// *events.NewerVersionError, *InUseError); damage is in the report.
func ScanAll(path string, fn func(events.Record) error) (*ReadReport, error) {
	rep := &ReadReport{Path: path}
	last := uint64(0)
	err := Scan(path, 1, func(r events.Record) error {
		rep.Read++
		last = r.Seq
		return fn(r)
	})
	rep.Last = last
	var de *DamagedError
	if err == nil {
		return rep, nil
	}
	if !errors.As(err, &de) || de.LastGoodSeq != last {
		return rep, err // fn's own error, or nothing was read at all
	}
	rep.Err = err
	var lc *LostCommitError
	if errors.As(err, &lc) {
		// Scan yielded every readable record of the lost commit already.
		if l := lc.Report.Lost; l.To == 0 || l.To > last {
			rep.Gaps = append(rep.Gaps, Gap{From: last + 1, To: l.To, Why: "the newest commit was lost with a damaged meta page and these records cannot be read"})
			rep.Last = max(rep.Last, l.To)
		}
		return rep, nil
	}
	s, serr := boltfile.SalvageFile(path)
	if serr != nil {
		rep.Gaps = append(rep.Gaps, Gap{From: last + 1, Why: fmt.Sprintf("%v; the pages could not be read: %v", de.Err, serr)})
		return rep, nil
	}
	end := de.limit
	if end == 0 || end == math.MaxUint64 {
		end = s.MaxCommitted
	}
	endKnown := end != 0
	seqs := make([]uint64, 0, len(s.Records))
	for seq := range s.Records {
		if seq > last && (!endKnown || seq <= end) {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	if !endKnown && len(seqs) > 0 {
		end = seqs[len(seqs)-1]
	}
	rep.Last = max(last, end)
	prev := last
	first := true
	for _, seq := range seqs {
		if seq > prev+1 {
			rep.Gaps = append(rep.Gaps, gapWhy(s, prev+1, seq-1, first, de))
			first = false
		}
		if err := fn(s.Records[seq]); err != nil {
			return rep, err
		}
		rep.Read++
		prev = seq
	}
	switch {
	case prev < rep.Last:
		rep.Gaps = append(rep.Gaps, gapWhy(s, prev+1, rep.Last, first, de))
	case !endKnown:
		// Nothing in the file says where the journal ended: records past
		// the last one found may be lost without a trace.
		g := gapWhy(s, prev+1, 0, first, de)
		g.Why += "; nothing in the file says how far the journal went"
		rep.Gaps = append(rep.Gaps, g)
	}
	return rep, nil
}

// gapWhy explains a gap from the damaged records found in it; the first
// gap also carries the error that stopped the ordered read.
func gapWhy(s *boltfile.Salvaged, from, to uint64, first bool, de *DamagedError) Gap {
	var why []string
	if first {
		why = append(why, de.Err.Error())
	}
	n := 0
	for _, b := range s.Bad {
		if b.Seq < from || (to != 0 && b.Seq > to) {
			continue
		}
		if n++; n <= maxGapWhy {
			why = append(why, fmt.Sprintf("seq %d on page %d: %s", b.Seq, b.Page, b.Reason))
		}
	}
	if n > maxGapWhy {
		why = append(why, fmt.Sprintf("and %d more damaged records", n-maxGapWhy))
	}
	if len(why) == 0 {
		why = append(why, "not found intact on any page")
	}
	return Gap{From: from, To: to, Why: strings.Join(why, "; ")}
}
