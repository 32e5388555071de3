package replay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// Options change what a verify replay runs with. The zero value replays
// the session exactly as recorded.
type Options struct {
	// Rules, when non-nil, replaces the rules recorded in session_started:
	// "would today's rules have decided the same?"
	Rules []events.RuleSource
	// Config, when non-nil, replaces the recorded session configuration.
	Config *events.SessionConfig
	// Tools, when non-nil, replaces the default tools (shell, apply_patch,
	// and the recorded MCP tools).
	Tools []engine.Tool
	// Stall bounds how long a segment may make no progress while a call
	// waits where the recorded process stopped; zero means 10 s. It only
	// matters for a journal the replay diverges from, which then still
	// finishes with the first record the replay never produced.
	Stall time.Duration
}

// Result summarises a successful verify replay.
type Result struct {
	Records  int // records in the journal
	Compared int // records the replay produced and matched
	Segments int // processes the session spanned (1 + resumes)
	Damaged  *journal.DamagedError
}

// VerifyFile replays the journal at path; see Verify.
func VerifyFile(ctx context.Context, path string, opts Options) (*Result, error) {
	var recs []events.Record
	err := journal.Scan(path, 1, func(r events.Record) error {
		recs = append(recs, r)
		return nil
	})
	var dmg *journal.DamagedError
	if err != nil && !errors.As(err, &dmg) {
		return nil, err
	}
	res, verr := Verify(ctx, recs, opts)
	if res != nil {
		res.Damaged = dmg
	}
	if verr == nil {
		return res, nil
	}
	var d *Divergence
	if errors.As(verr, &d) {
		d.Path = path
	}
	if dmg != nil {
		// The records after the damage were never read: a divergence
		// there is the damage, not the engine.
		return res, fmt.Errorf("%w\n%v; the replay read only the %d records before it, so it cannot vouch for the session", verr, dmg, len(recs))
	}
	if d == nil {
		return res, fmt.Errorf("replay %s: %w", path, verr)
	}
	return res, verr
}

// Verify re-drives the engine over recorded inputs (model responses,
// decisions, exec outcomes, risk assessments) without calling a model, a
// user or the OS, and compares every record it writes with the journal's.
// It returns a *Divergence for the first difference.
func Verify(ctx context.Context, recs []events.Record, opts Options) (*Result, error) {
	dec := make([]decoded, 0, len(recs))
	for _, r := range recs {
		d := decoded{rec: r}
		if r.Kind.IsInput() {
			b, err := r.Decode()
			if err != nil {
				return nil, fmt.Errorf("replay: seq %d: %w", r.Seq, err)
			}
			d.body = b
		} else if !r.Kind.Known() {
			return nil, fmt.Errorf("replay: %w", &events.UnknownKindError{Seq: r.Seq, Kind: r.Kind})
		}
		dec = append(dec, d)
	}
	if len(dec) == 0 || dec[0].rec.Kind != events.KindSessionStarted {
		return nil, errors.New("replay: the journal does not begin with session_started")
	}
	ss := *dec[0].body.(*events.SessionStarted)
	if opts.Rules != nil {
		ss.Rules = opts.Rules
	}
	if opts.Config != nil {
		ss.Config = *opts.Config
	}
	res := &Result{Records: len(dec)}
	if d := checkNetworkRecords(dec); d != nil {
		return res, d
	}
	in := collect(dec)

	// Segment boundaries: every session_resumed record.
	var stops []uint64
	for _, d := range dec {
		if d.rec.Kind == events.KindSessionResumed {
			stops = append(stops, d.rec.Seq)
		}
	}
	mdl := &recordedModel{in: in}
	cmp := &recordedCompactor{in: in}
	amender := newRecordedAmender(in)
	var sess *engine.Session
	for seg := 0; seg <= len(stops); seg++ {
		res.Segments++
		var stopAt uint64
		if seg < len(stops) {
			stopAt = stops[seg]
		} else if !in.ended {
			// The last process died mid-turn and no resume followed: its
			// segment ends where the journal does.
			stopAt = in.last + 1
		}
		log := newComparingLog(dec[1:], stopAt, opts.Stall)
		var from uint64
		if seg > 0 {
			from = stops[seg-1]
		}
		mdl.to, mdl.log = stopAt, log
		cmp.to, cmp.log = stopAt, log
		cfg := engine.Config{
			SessionID: ss.SessionID, Cwd: ss.Cwd, Session: ss.Config, Settings: ss.Settings, Plan: ss.Plan,
			Rules: nonNil(ss.Rules), Instructions: ss.Instructions, DocketVersion: ss.DocketVersion,
			Model: mdl, Approver: recordedApprover{in: in, from: from, to: stopAt, log: log}, Runner: recordedRunner{in: in, log: log, from: from, to: stopAt},
			Clock: fixedClock{t: time.Unix(0, ss.StartedAt)}, Paths: recordedPaths{in: in}, Tools: opts.Tools,
			Amender: amender, Compactor: cmp,
		}
		if len(in.risks) > 0 {
			// The session assessed risk: feed its assessments back.
			cfg.Risk = recordedRisk{in: in}
		}
		if len(in.hooks) > 0 {
			// The session ran hooks: feed their verdicts back.
			cfg.Hooks = recordedHooks{in: in, from: from, to: stopAt}
		}
		if cfg.Tools == nil {
			cfg.Tools = defaultTools(ss)
		}
		var err error
		if seg == 0 {
			sess, err = engine.Restore(cfg, log, recs[:1])
		} else {
			log.skipTo(from + 1)
			sess, err = engine.Restore(cfg, log, recs[:indexOf(recs, from)])
			mdl.next = countResponses(dec, from)
			cmp.next = countKind(dec, from, events.KindCompaction)
		}
		log.segmentWindow(from)
		if err != nil {
			return res, fmt.Errorf("replay: restore segment %d: %w", seg+1, err)
		}
		if err := drive(ctx, sess, dec, log, from, stopAt); err != nil {
			return res, err
		}
		if closedCleanly(dec, from, stopAt) {
			// The session closed here, ending its running processes:
			// the engine recomputes those ends, compared like any record.
			// A close cut short (a journal write error, a crash after a
			// commit) recorded them only up to a point: the journal
			// running out of them there is no divergence, and the
			// processes past it are running when it ends, their end
			// unknown. An end missing before a recorded one is still
			// one (unconsumed, below).
			log.closing()
			if _, err := sess.EndProcesses(); err != nil && !errors.Is(err, errCrashed) {
				var d *Divergence
				if errors.As(err, &d) {
					return res, d
				}
				return res, fmt.Errorf("replay: segment %d: ending processes at the close: %w", seg+1, err)
			}
		}
		if d := log.unconsumed(); d != nil {
			return res, d
		}
		res.Compared += log.compared
	}
	return res, nil
}

// drive runs the segment's turns: a resumed segment first finishes the
// pending turn, then every user_turn of the segment runs in order.
func drive(ctx context.Context, s *engine.Session, dec []decoded, log *comparingLog, from, stopAt uint64) error {
	check := func(err error) error {
		if err == nil {
			return nil
		}
		var d *Divergence
		if errors.As(err, &d) {
			return d
		}
		if errors.Is(err, errCrashed) {
			return errCrashed
		}
		if log.diverged != nil {
			return log.diverged
		}
		return fmt.Errorf("replay: engine: %w", err)
	}
	if from > 0 {
		if _, _, ok := s.Pending(); ok {
			tctx, done := log.stopper.turn(ctx)
			_, err := s.Continue(tctx)
			done()
			if err != nil {
				if e := check(err); !errors.Is(e, errCrashed) {
					return e
				}
				return nil
			}
		}
	}
	for _, d := range dec {
		if d.rec.Seq <= from || (stopAt > 0 && d.rec.Seq > stopAt) {
			continue
		}
		var err error
		switch v := d.body.(type) {
		case *events.PolicyChanged:
			err = s.ReplayPolicyChange(*v)
		case *events.UserTurn:
			tctx, done := log.stopper.turn(ctx)
			_, err = s.TurnWithInput(tctx, engine.TurnInput{Text: v.Text, Images: v.Images, Attachments: v.Attachments})
			done()
		case *events.Compaction:
			// A compaction between turns was the user's (/compact); an
			// automatic one happens inside the turn the loop drives.
			if v.Trigger != events.CompactManual {
				continue
			}
			_, err = s.Compact(ctx)
			var ce *engine.CompactError
			if errors.As(err, &ce) {
				err = nil // recorded as failed, and replayed so
			}
		default:
			continue
		}
		if err != nil {
			if e := check(err); !errors.Is(e, errCrashed) {
				return e
			}
			return nil
		}
		if log.crashed {
			return nil
		}
	}
	return nil
}

func indexOf(recs []events.Record, seq uint64) int {
	for i, r := range recs {
		if r.Seq == seq {
			return i
		}
	}
	return len(recs)
}

func countResponses(dec []decoded, before uint64) int {
	return countKind(dec, before, events.KindModelResponse)
}

// countKind counts the records of kind k before seq before.
func countKind(dec []decoded, before uint64, k events.RecordKind) int {
	n := 0
	for _, d := range dec {
		if d.rec.Seq < before && d.rec.Kind == k {
			n++
		}
	}
	return n
}

// nonNil keeps an empty rule set from being mistaken for "use the recorded".
func nonNil(r []events.RuleSource) []events.RuleSource {
	if r == nil {
		return []events.RuleSource{}
	}
	return r
}

// closedCleanly reports whether the segment between from and stopAt (0:
// the journal's end) holds the ends a session's close records for its
// running processes (process_ended, session_closed).
func closedCleanly(dec []decoded, from, stopAt uint64) bool {
	for _, d := range dec {
		if d.rec.Seq <= from || (stopAt != 0 && d.rec.Seq >= stopAt) || d.rec.Kind != events.KindProcessEnded {
			continue
		}
		if v, ok := d.value().(*events.ProcessEnded); ok && v.How == events.ProcessSessionClosed {
			return true
		}
	}
	return false
}
