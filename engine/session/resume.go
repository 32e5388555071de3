package session

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// Recorded is what a journal holds about its session, for ResumeWith's
// configure to choose the options from before anything is written.
type Recorded struct {
	// Path is the journal's file.
	Path string
	// Started is the session's first record: its id, workspace, policy,
	// plan, rules, settings and tools.
	Started *events.SessionStarted
	// Records are all the journal's records.
	Records []events.Record
	// Damage, when not empty, says what of a damaged journal could not be
	// read (the session goes on from what could).
	Damage string
	// ModelResponses and Compactions count what a scripted model already
	// answered: a script goes on from the next lines. Responses whose id
	// begins with OwnResponsePrefix were Docket's own, not the model's.
	ModelResponses, Compactions int
}

// OwnResponsePrefix starts the id of a model response Docket gave itself
// (engine.OwnResponsePrefix).
const OwnResponsePrefix = engine.OwnResponsePrefix

// EmptyJournalError is a journal with no record: its session stopped
// before its first commit, so nothing ran and there is nothing to resume.
type EmptyJournalError struct{ SessionID string }

func (e *EmptyJournalError) Error() string {
	return fmt.Sprintf("session %s has no records: it stopped before its first commit, so nothing ran", e.SessionID)
}

// ParentError is a subagent's journal given to Resume: a subagent goes on
// with its parent, whose approver it asks and whose call it ends.
type ParentError struct {
	SessionID string
	Parent    events.ParentLink
}

func (e *ParentError) Error() string {
	p := e.Parent
	return fmt.Sprintf("session %s is subagent %s of session %s (call %s); resume that session", e.SessionID, p.Name, p.SessionID, p.CallID)
}

// ErrPending says that a resumed session's last turn still waits for a
// decision (Options.RequireAnswered).
var ErrPending = errors.New("the session's turn still waits for a decision")

// Resume continues the session whose journal is at path, with o's model,
// approver and observer. The session keeps its recorded workspace, policy,
// sandbox plan, rules, instructions and settings: those fields of o are
// ignored. A *script.Model is skipped past the responses already
// journaled. Check Pending for a turn to Continue.
func Resume(ctx context.Context, path string, o Options) (*Session, error) {
	return ResumeWith(ctx, path, func(Recorded) (Options, error) { return o, nil })
}

// ResumeWith is Resume with the options chosen from what the journal
// recorded (say, the model it was driven by). configure runs once, before
// anything is written; when it or anything before the resume's own record
// fails, the journal is as it was, and can be resumed again.
func ResumeWith(ctx context.Context, path string, configure func(Recorded) (Options, error)) (*Session, error) {
	j, err := journal.Open(path)
	if err != nil {
		return nil, err
	}
	s := &Session{journal: j, resumed: true, path: j.Path()}
	if err := s.resume(ctx, configure); err != nil {
		return nil, errors.Join(err, s.close())
	}
	return s, nil
}

// resume reads the journal s holds and restores its session.
func (s *Session) resume(ctx context.Context, configure func(Recorded) (Options, error)) error {
	j := s.journal
	rec, err := readRecorded(j)
	if err != nil {
		return err
	}
	o, err := configure(rec)
	if err != nil {
		return err
	}
	if o.Model == nil {
		return errors.New("session: Options.Model is required")
	}
	if err := o.defaults(); err != nil {
		return err
	}
	ss := rec.Started
	o.SessionID = ss.SessionID
	if m, ok := o.Model.(*script.Model); ok {
		m.Skip(rec.ModelResponses)
		m.SkipCompactions(rec.Compactions)
	}
	if offeredSpawnAgent(ss) {
		o.Subagents = true
	}
	if err := Preflight(o.Model); err != nil {
		return err
	}
	cfg, err := s.wire(ctx, &o, ss.Cwd, sharedTempRoots(ss.Config, ss.Cwd))
	if err != nil {
		return err
	}
	if o.RequireAnswered {
		// Restore writes nothing: the probe only reads the records.
		probe, err := engine.Restore(cfg, j, rec.Records)
		if err != nil {
			return err
		}
		if _, awaiting, pending := probe.Pending(); pending {
			return fmt.Errorf("session %s (waiting on %v): %w", ss.SessionID, awaiting, ErrPending)
		}
	}
	log, err := s.wrap(ctx, &o, rec.Records)
	if err != nil {
		return err
	}
	// Restore fills the policy, plan, rules, instructions and settings
	// from the journal, left empty here.
	cfg.SessionID, cfg.Egress = ss.SessionID, o.Egress
	eng, err := engine.Resume(cfg, log, rec.Records, events.SessionResumed{PID: os.Getpid(), Decisions: o.ResumeDecisions})
	if err != nil {
		return err
	}
	s.eng = eng
	s.cfg = cfg
	s.cfg.Session, s.cfg.Plan, s.cfg.Rules, s.cfg.Settings, s.cfg.Instructions = ss.Config, ss.Plan, ss.Rules, ss.Settings, ss.Instructions
	return nil
}

// readRecorded reads the journal's records and its session_started.
func readRecorded(j *journal.Journal) (Recorded, error) {
	rec := Recorded{Path: j.Path()}
	if d := j.Damage(); d != nil {
		rec.Damage = d.String()
	}
	recs, err := j.All()
	if err != nil {
		return rec, err
	}
	if len(recs) == 0 {
		return rec, &EmptyJournalError{SessionID: j.SessionID()}
	}
	first, err := recs[0].Decode()
	if err != nil {
		return rec, err
	}
	ss, ok := first.(*events.SessionStarted)
	if !ok {
		return rec, errors.New("the journal does not begin with session_started")
	}
	if ss.Parent != nil {
		return rec, &ParentError{SessionID: ss.SessionID, Parent: *ss.Parent}
	}
	rec.Started, rec.Records = ss, recs
	used := engine.ScriptLinesUsed(recs)
	rec.ModelResponses, rec.Compactions = used.Responses, used.Compactions
	return rec, nil
}

// offeredSpawnAgent says whether the session was offered spawn_agent: a
// resumed session keeps the tools it had.
func offeredSpawnAgent(ss *events.SessionStarted) bool {
	for _, t := range ss.Tools {
		if t.Server == "" && t.Name == engine.SpawnAgentName {
			return true
		}
	}
	return false
}

// Preflight fails early when model m says it cannot make a request for
// want of credentials (a model with a CheckCredentials method). Resume
// calls it before it writes anything.
func Preflight(m model.Model) error {
	if cc, ok := m.(interface{ CheckCredentials() error }); ok {
		return cc.CheckCredentials()
	}
	return nil
}
