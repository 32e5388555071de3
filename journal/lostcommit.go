package journal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/internal/boltfile"
)

// DamageReport is what opening a journal found that bbolt passes over in
// silence: one of its two meta pages fails its checksum. bbolt then uses the
// other, older one, and when the damaged page recorded the newest commit,
// that commit is dropped without a word; its records are still in the
// file's pages, and Lost says what they are.
type DamageReport struct {
	Path string
	// MetaPage is the damaged meta page, 0 or 1.
	MetaPage int
	// ClaimedTxID is the txid the damaged page's bytes say (unverified);
	// InForceTxID is the txid of the meta page bbolt fell back to.
	ClaimedTxID, InForceTxID uint64
	// CommittedSeq is the last seq the meta page in force covers.
	CommittedSeq uint64
	// Lost is the commit the damaged page recorded, when the file shows
	// there was one past CommittedSeq; nil when the damaged page held the
	// older commit and nothing is lost.
	Lost *LostCommit
}

// LostCommit is a commit that a damaged meta page no longer points at.
type LostCommit struct {
	// From and To are the seqs it covered; To is 0 when the file does not
	// say where it ended.
	From, To uint64
	// Records are its intact records, from From on, without a gap.
	Records []events.Record
	// Calls are the call ids its readable records name, sorted.
	Calls []string
	// Complete says Records run from From to To and To is confirmed by
	// the commit's own committed_seq marker.
	Complete bool
	// Recovered says a writer committed Records back into the journal.
	Recovered bool
}

// String is one line for an operator; the caller names the file.
func (d *DamageReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "meta page %d is damaged (it claims txid %d; bbolt fell back to txid %d, which ends at seq %d)",
		d.MetaPage, d.ClaimedTxID, d.InForceTxID, d.CommittedSeq)
	l := d.Lost
	switch {
	case l == nil:
		b.WriteString("; it held the older commit, so nothing is lost")
		return b.String()
	case l.Recovered:
		fmt.Fprintf(&b, "; the newest commit (seqs %d to %d) was recovered whole from its pages", l.From, l.To)
	case l.Complete:
		fmt.Fprintf(&b, "; the newest commit (seqs %d to %d) is intact in its pages", l.From, l.To)
	case l.To == 0:
		fmt.Fprintf(&b, "; a newer commit from seq %d on was lost and %d of its records can be read", l.From, len(l.Records))
	default:
		fmt.Fprintf(&b, "; the newest commit (seqs %d to %d) was lost and only %d of its records can be read", l.From, l.To, len(l.Records))
	}
	if len(l.Calls) > 0 {
		fmt.Fprintf(&b, "; calls in it: %s", strings.Join(l.Calls, ", "))
	}
	return b.String()
}

// LostCommitError says the newest commit was lost with a damaged meta page.
// Open returns it (wrapped, naming the file) when the commit cannot be
// recovered whole: resuming would forget calls that may have run, and could
// run them again. Scan returns it inside a *DamagedError after yielding
// the lost commit's readable records.
type LostCommitError struct{ Report *DamageReport }

func (e *LostCommitError) Error() string { return e.Report.String() }

// Damage returns what opening the journal found wrong with its meta pages,
// or nil when both are intact.
func (j *Journal) Damage() *DamageReport { return j.damage }

// lookForLostCommit runs when one meta page is invalid: it scans the file's
// pages for records past the committed seq, which only a commit that the
// damaged page recorded can have left (or a commit cut short, which is
// treated the same way: its records may have been acted on).
func (j *Journal) lookForLostCommit(metas [2]boltfile.MetaState) (*DamageReport, error) {
	bad := 0
	if metas[0].Valid {
		bad = 1
	}
	d := &DamageReport{Path: j.path, MetaPage: bad, ClaimedTxID: metas[bad].ClaimedTxID,
		InForceTxID: metas[1-bad].Meta.TxID, CommittedSeq: j.next - 1}
	s, err := boltfile.SalvageFile(j.path)
	if err != nil {
		return nil, fmt.Errorf("journal %s: read its pages: %w", j.path, err)
	}
	base := j.next - 1
	l := &LostCommit{From: base + 1}
	for next := base + 1; len(l.Records) < len(s.Records); next++ {
		r, ok := s.Records[next]
		if !ok {
			break
		}
		l.Records = append(l.Records, r)
	}
	last := base + uint64(len(l.Records))
	if s.MaxCommitted > base {
		l.To = s.MaxCommitted
	} else if last > base {
		l.To = last
	}
	// A damaged page claiming exactly the next txid recorded a commit even
	// when none of that commit's pages can be read.
	if len(l.Records) == 0 && s.MaxCommitted <= base && d.ClaimedTxID != d.InForceTxID+1 {
		return d, nil
	}
	l.Complete = len(l.Records) > 0 && s.MaxCommitted == last
	for _, r := range l.Records {
		if r.CallID != "" && !slices.Contains(l.Calls, r.CallID) {
			l.Calls = append(l.Calls, r.CallID)
		}
	}
	slices.Sort(l.Calls)
	d.Lost = l
	return d, nil
}

// recoverLostCommit commits a lost commit's records back, so the journal
// again holds everything that was acknowledged (and may have been acted on)
// before anything new is written over the pages that still hold them.
func (j *Journal) recoverLostCommit() error {
	l := j.damage.Lost
	if !l.Complete {
		return fmt.Errorf("journal %s: %w; resuming could run those calls a second time, so the session is not resumed (docket audit reads what is left)",
			j.path, &LostCommitError{Report: j.damage})
	}
	j.mu.Lock()
	j.pending = append(j.pending[:0], l.Records...)
	j.next = l.To + 1
	j.mu.Unlock()
	if err := j.Commit(); err != nil {
		return fmt.Errorf("journal %s: recover the lost commit: %w", j.path, err)
	}
	l.Recovered = true
	return nil
}
