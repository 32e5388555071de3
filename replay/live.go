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
	"github.com/docket-engine/docket/engine/uexec"
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
	// KeepScratch keeps the scratch area after the replay (for a look at
	// what the commands did); by default it is removed.
	KeepScratch bool
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
	Journal string `json:"journal"`
	Scratch string `json:"scratch"`
	// ScratchKept says the scratch area was left in place (--keep-scratch).
	ScratchKept bool    `json:"scratch_kept"`
	Calls       int     `json:"calls"`
	Drift       []Drift `json:"drift"`
	Divergent   string  `json:"divergence,omitempty"`
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
	if r.ScratchKept {
		fmt.Fprintf(w, "  scratch area kept: %s\n", r.Scratch)
	} else {
		fmt.Fprintln(w, "  scratch area removed")
	}
}

// LivePlan is what a live replay would run: for the confirmation a person
// gives before anything runs.
type LivePlan struct {
	Journal   string
	Workspace string // the directory copied into the scratch area
	Commands  int    // recorded runs (shell and apply_patch attempts)
	Skipped   int    // recorded MCP tool calls, which live replay does not make
}

// PlanLive reads the journal and says what Live would do with it.
func PlanLive(path string, opts LiveOptions) (*LivePlan, error) {
	dec, ss, err := readLive(path)
	if err != nil {
		return nil, err
	}
	p := &LivePlan{Journal: path, Workspace: opts.Workspace}
	if p.Workspace == "" {
		p.Workspace = ss.Cwd
	}
	for _, d := range dec {
		if st, ok := d.body.(*events.ExecStarted); ok {
			if st.Server != "" {
				p.Skipped++
			} else {
				p.Commands++
			}
		}
	}
	return p, nil
}

func readLive(path string) ([]decoded, *events.SessionStarted, error) {
	var recs []events.Record
	if err := journal.Scan(path, 1, func(r events.Record) error { recs = append(recs, r); return nil }); err != nil {
		var dmg *journal.DamagedError
		if !errors.As(err, &dmg) {
			return nil, nil, err
		}
	}
	dec := make([]decoded, 0, len(recs))
	for _, r := range recs {
		b, err := r.Decode()
		if err != nil {
			return nil, nil, fmt.Errorf("live replay: %s: seq %d: %w", path, r.Seq, err)
		}
		dec = append(dec, decoded{rec: r, body: b})
	}
	if len(dec) == 0 || dec[0].rec.Kind != events.KindSessionStarted {
		return nil, nil, fmt.Errorf("live replay: %s does not begin with session_started", path)
	}
	return dec, dec[0].body.(*events.SessionStarted), nil
}

// Live re-drives the recorded user turns, model responses and decisions,
// but runs the commands for real in a scratch copy of the workspace, and
// reports per call where the outcome now differs.
//
// Nothing it runs can write outside its scratch area: every command runs
// under the sandbox (a recorded unsandboxed run included) with the scratch
// area as its only writable root and the network off, and MCP tool calls
// are not made. The scratch area is removed afterwards unless
// opts.KeepScratch.
func Live(ctx context.Context, path string, opts LiveOptions) (rep *LiveReport, err error) {
	dec, ssp, err := readLive(path)
	if err != nil {
		return nil, err
	}
	ss := *ssp
	src := opts.Workspace
	if src == "" {
		src = ss.Cwd
	}
	root, err := os.MkdirTemp("", "docket-live-")
	if err != nil {
		return nil, err
	}
	if !opts.KeepScratch {
		defer func() {
			if rerr := os.RemoveAll(root); rerr != nil && err == nil {
				err = fmt.Errorf("live replay: remove the scratch area: %w", rerr)
			}
		}()
	}
	scratch, tmp := filepath.Join(root, "workspace"), filepath.Join(root, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
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
	rep = &LiveReport{Journal: path, Scratch: root, ScratchKept: opts.KeepScratch}
	rec := &outcomeLog{got: map[string]events.ExecOutcome{}}
	plan := ss.Plan
	plan.WritableRoots = rewriteRoots(plan.WritableRoots, ss.Cwd, scratch)
	plan.ReadOnlySubpaths = rewriteRoots(plan.ReadOnlySubpaths, ss.Cwd, scratch)
	// Long-lived processes the recorded session started run again,
	// confined like its commands, and end with the replay.
	procs := &uexec.Table{}
	defer func() { _ = procs.Close() }() // kills what is left; it reports nothing
	runner := &confinedRunner{
		inner: &engine.ProcessRunner{HelperPath: helper, Env: append(os.Environ(), "TMPDIR="+tmp), Processes: procs},
		root:  root, from: ss.Cwd, to: scratch, limits: ss.Plan.Limits,
		readOnly: plan.ReadOnlySubpaths, protected: ss.Plan.RequireProtectedPaths,
	}
	cfg := engine.Config{SessionID: ss.SessionID, Cwd: scratch, Session: ss.Config, Plan: plan, Rules: ss.Rules,
		Instructions: ss.Instructions, Model: &recordedModel{in: in}, Approver: recordedApprover{in: in},
		Runner: runner, Clock: engine.SystemClock{}, Tools: defaultTools(ss), Amender: newRecordedAmender(in),
		Compactor: &recordedCompactor{in: in}}
	if len(in.hooks) > 0 {
		// Hooks judged the calls; live replay re-runs the calls, not the
		// judgments, so the recorded verdicts decide as they did.
		cfg.Hooks = recordedHooks{in: in}
	}
	recs := make([]events.Record, 1)
	recs[0] = dec[0].rec
	s, err := engine.Restore(cfg, rec, recs)
	if err != nil {
		return nil, err
	}
	for _, d := range dec {
		var err error
		switch v := d.body.(type) {
		case *events.PolicyChanged:
			err = s.ReplayPolicyChange(*v)
		case *events.UserTurn:
			_, err = s.TurnWithInput(ctx, engine.TurnInput{Text: v.Text, Images: v.Images, Attachments: v.Attachments})
		case *events.Compaction:
			if v.Trigger == events.CompactManual {
				_, err = s.Compact(ctx)
			}
		}
		if err != nil {
			rep.Divergent = err.Error()
			break
		}
	}
	unsandboxed := map[string]bool{}
	for _, d := range dec {
		if st, ok := d.body.(*events.ExecStarted); ok && !st.Sandbox.Sandboxed() && st.Server == "" {
			unsandboxed[outcomeKey(st.CallID, st.Attempt)] = true
		}
	}
	keys := make([]string, 0, len(in.outcomes))
	for k := range in.outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	got := rec.snapshot()
	for _, k := range keys {
		was := in.outcomes[k]
		rep.Calls++
		recorded := brief(was)
		if unsandboxed[k] {
			// Its drift is reported even when the outcome is the same:
			// the run it is compared with was confined, the recorded one
			// was not.
			recorded = "without a sandbox: " + recorded
		}
		now, ok := got[k]
		switch {
		case !ok:
			rep.Drift = append(rep.Drift, Drift{CallID: was.CallID, Attempt: was.Attempt, Recorded: recorded, Now: "did not run"})
		case unsandboxed[k] || brief(now) != brief(was):
			rep.Drift = append(rep.Drift, Drift{CallID: was.CallID, Attempt: was.Attempt, Recorded: recorded, Now: "in the sandbox: " + brief(now)})
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

// snapshot copies the outcomes: the engine's goroutines of a cancelled
// turn may still be writing.
func (l *outcomeLog) snapshot() map[string]events.ExecOutcome {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]events.ExecOutcome, len(l.got))
	for k, v := range l.got {
		out[k] = v
	}
	return out
}

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
