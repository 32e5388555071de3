package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/journal"
)

// LiveOptions tune a live replay.
type LiveOptions struct {
	// Workspace is the directory to copy; empty means the recorded cwd.
	Workspace string
	// HelperPath is the docket binary used as sandbox helper; empty means
	// os.Executable().
	HelperPath string
}

// Drift is how one call's outcome differs now from the recording.
type Drift struct {
	CallID   string `json:"call_id"`
	Attempt  int    `json:"attempt"`
	Recorded string `json:"recorded"`
	Now      string `json:"now"`
}

// LiveReport is the result of a live replay.
type LiveReport struct {
	Journal   string  `json:"journal"`
	Scratch   string  `json:"scratch"`
	Calls     int     `json:"calls"`
	Drift     []Drift `json:"drift"`
	Divergent string  `json:"divergence,omitempty"`
}

// Drifted reports whether anything differs.
func (r *LiveReport) Drifted() bool { return len(r.Drift) > 0 || r.Divergent != "" }

// Render prints the report for a person.
func (r *LiveReport) Render(w io.Writer) {
	fmt.Fprintf(w, "live replay of %s in %s: %d call outcome(s) compared\n", r.Journal, r.Scratch, r.Calls)
	for _, d := range r.Drift {
		// Recorded and current outcomes quote command output: safe text.
		fmt.Fprintf(w, "  %s (attempt %d): recorded %s; now %s\n", safetext.Line(d.CallID), d.Attempt, safetext.Line(d.Recorded), safetext.Line(d.Now))
	}
	if r.Divergent != "" {
		fmt.Fprintf(w, "  the session took another path: %s\n", safetext.Text(r.Divergent))
	}
	if !r.Drifted() {
		fmt.Fprintln(w, "  no drift")
	}
}

// Live re-drives the recorded user turns, model responses and decisions,
// but runs the commands for real in a scratch copy of the workspace, and
// reports per call where the outcome now differs.
func Live(ctx context.Context, path string, opts LiveOptions) (*LiveReport, error) {
	var recs []events.Record
	if err := journal.Scan(path, 1, func(r events.Record) error { recs = append(recs, r); return nil }); err != nil {
		var dmg *journal.DamagedError
		if !errors.As(err, &dmg) {
			return nil, err
		}
	}
	dec := make([]decoded, 0, len(recs))
	for _, r := range recs {
		b, err := r.Decode()
		if err != nil {
			return nil, err
		}
		dec = append(dec, decoded{rec: r, body: b})
	}
	if len(dec) == 0 || dec[0].rec.Kind != events.KindSessionStarted {
		return nil, errors.New("live replay: the journal does not begin with session_started")
	}
	ss := *dec[0].body.(*events.SessionStarted)
	src := opts.Workspace
	if src == "" {
		src = ss.Cwd
	}
	scratch, err := os.MkdirTemp("", "docket-live-")
	if err != nil {
		return nil, err
	}
	if err := copyTree(src, scratch); err != nil {
		return nil, fmt.Errorf("live replay: copy workspace %s: %w", src, err)
	}
	in := collect(dec)
	helper := opts.HelperPath
	if helper == "" {
		if helper, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	rep := &LiveReport{Journal: path, Scratch: scratch}
	rec := &outcomeLog{got: map[string]events.ExecOutcome{}}
	plan := ss.Plan
	plan.WritableRoots = rewriteRoots(plan.WritableRoots, ss.Cwd, scratch)
	plan.ReadOnlySubpaths = rewriteRoots(plan.ReadOnlySubpaths, ss.Cwd, scratch)
	cfg := engine.Config{SessionID: ss.SessionID, Cwd: scratch, Session: ss.Config, Plan: plan, Rules: ss.Rules,
		Instructions: ss.Instructions, Model: &recordedModel{in: in}, Approver: recordedApprover{in: in},
		Runner: &engine.ProcessRunner{HelperPath: helper}, Clock: engine.SystemClock{}, Tools: defaultTools(ss), Amender: engine.NoopAmender{}}
	s, err := engine.Restore(cfg, rec, recs[:1])
	if err != nil {
		return nil, err
	}
	for _, d := range dec {
		ut, ok := d.body.(*events.UserTurn)
		if !ok {
			continue
		}
		if _, err := s.TurnWithImages(ctx, ut.Text, ut.Images); err != nil {
			rep.Divergent = err.Error()
			break
		}
	}
	keys := make([]string, 0, len(in.outcomes))
	for k := range in.outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		was := in.outcomes[k]
		rep.Calls++
		now, ok := rec.got[k]
		switch {
		case !ok:
			rep.Drift = append(rep.Drift, Drift{CallID: was.CallID, Attempt: was.Attempt, Recorded: brief(was), Now: "did not run"})
		case brief(now) != brief(was):
			rep.Drift = append(rep.Drift, Drift{CallID: was.CallID, Attempt: was.Attempt, Recorded: brief(was), Now: brief(now)})
		}
	}
	return rep, nil
}

func brief(o events.ExecOutcome) string {
	s := fmt.Sprintf("exit %d", o.ExitCode)
	if o.Denial != nil {
		s += " (sandbox denial)"
	}
	if o.TimedOut {
		s += " (timed out)"
	}
	out := o.Output
	if len(out) > 60 {
		out = out[:60] + "…"
	}
	return fmt.Sprintf("%s, output %q", s, out)
}

// outcomeLog keeps the exec outcomes the engine records (classified by the
// engine, as in a real session) and nothing else: live replay writes no
// journal.
type outcomeLog struct {
	mu  sync.Mutex
	got map[string]events.ExecOutcome
}

func (l *outcomeLog) Append(at time.Time, callID string, body any) (events.Record, error) {
	if o, ok := body.(events.ExecOutcome); ok {
		l.mu.Lock()
		l.got[outcomeKey(o.CallID, o.Attempt)] = o
		l.mu.Unlock()
	}
	return events.NewRecord(0, at.UnixNano(), callID, body)
}

func (*outcomeLog) Commit() error { return nil }

func rewriteRoots(paths []string, from, to string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if rel, err := filepath.Rel(from, p); err == nil && events.Within(p, from) {
			out[i] = filepath.Join(to, rel)
		} else {
			out[i] = p
		}
	}
	return out
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, info.Mode().Perm())
		}
		return nil
	})
}
