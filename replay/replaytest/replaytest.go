package replaytest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/rulesfile"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/replay"
)

// Option changes how Verify replays a journal.
type Option func(*settings)

type settings struct {
	current bool
	home    string
	project string
	opts    replay.Options
}

// RecordedRules replays with the rules recorded in the journal: the test
// then fails only when Docket itself decides differently. It is the
// default, and undoes an earlier CurrentRules, or rules an earlier
// WithOptions gave.
func RecordedRules() Option {
	return func(s *settings) { s.current, s.opts.Rules = false, nil }
}

// CurrentRules replays with the rules files that load now: home/rules/*.rules
// (home is a Docket home, $DOCKET_HOME; "" loads none) and
// project/.docket/rules/*.rules (project "" loads none), loaded as a session
// started now would load them. Naming project is the trust a session
// needs from the configuration before it loads a workspace's rules: pass
// your repository's root. The test then fails when a change to those files
// changes a recorded decision.
func CurrentRules(home, project string) Option {
	return func(s *settings) { s.current, s.home, s.project = true, home, project }
}

// WithOptions sets the replay's options (rules, configuration, tools,
// stall bound); CurrentRules, when also given, replaces its Rules.
func WithOptions(o replay.Options) Option {
	return func(s *settings) { s.opts = o }
}

// Verify replays the journal at path and reports the first divergence
// through t.Errorf: the record's seq, its call, its kind, and the lines
// of the recorded and replayed payloads that differ. A journal that cannot
// be read, or rules that cannot be loaded, stop the test with t.Fatalf.
// Verify returns whether the replay matched.
func Verify(t testing.TB, path string, opts ...Option) bool {
	t.Helper()
	return VerifyContext(context.Background(), t, path, opts...)
}

// VerifyContext is Verify under ctx, which bounds the replay.
func VerifyContext(ctx context.Context, t testing.TB, path string, opts ...Option) bool {
	t.Helper()
	var s settings
	for _, o := range opts {
		o(&s)
	}
	ro := s.opts
	label := "recorded rules"
	if ro.Rules != nil {
		label = fmt.Sprintf("given rules, %d sources", len(ro.Rules))
	}
	if s.current {
		ss, err := replay.SessionStart(path)
		if err != nil {
			t.Fatalf("replaytest: %v", err)
			return false
		}
		srcs, err := rulesfile.InForce(ctx, s.home, s.project)
		if err != nil {
			t.Fatalf("replaytest: load the current rules (home %q, project %q): %v", s.home, s.project, err)
			return false
		}
		ro.Rules = reroot(srcs, ss)
		label = fmt.Sprintf("current rules, %d files", len(srcs))
	}
	res, err := replay.VerifyFile(ctx, path, ro)
	var d *replay.Divergence
	switch {
	case errors.As(err, &d):
		msg := Report(path, label, d)
		if res != nil && res.Damaged != nil {
			msg += fmt.Sprintf("and the journal is damaged: %v; the replay read only the %d records before it\n", res.Damaged, res.Records)
		}
		t.Errorf("%s", msg)
		return false
	case err != nil:
		t.Fatalf("replaytest: %s: %v", path, err)
		return false
	case res.Damaged != nil:
		t.Errorf("replaytest: %s: %v: the %d records before it replayed without a divergence, but the rest could not be read", path, res.Damaged, res.Records)
		return false
	}
	return true
}

// Report renders a divergence for a test log: where (file, seq, call,
// record kind), under which rules, and a diff of the two canonical JSON
// payloads, "-" lines the journal's and "+" lines the replay's. Recorded
// text came from a model: control characters are escaped.
func Report(path, rules string, d *replay.Divergence) string {
	var b strings.Builder
	call := d.CallID
	if call == "" {
		call = "(session)"
	}
	fmt.Fprintf(&b, "replay of %s (%s) diverged at seq %d, call %s, record %s\n", path, rules, d.Seq, call, d.Kind)
	b.WriteString("--- journal (recorded)\n+++ replay (now)\n")
	b.WriteString(Diff(d.Want, d.Got))
	return safetext.Text(b.String())
}

// reroot places the rules files that load now where the recorded session
// loaded its own: a user file in the recorded user rules directory, a
// project file under the recorded workspace's .docket/rules. A decision's
// reason names the rule's file, and a journal recorded in one checkout
// and replayed in another (a CI runner's) would otherwise differ on every
// call a rule decided, although no rule changed. A file's name and text
// are kept, so an added, removed or edited file still shows.
func reroot(srcs []events.RuleSource, ss *events.SessionStarted) []events.RuleSource {
	userDir := ""
	for _, r := range ss.Rules {
		if !r.Project {
			userDir = filepath.Dir(r.Path)
			break
		}
	}
	out := make([]events.RuleSource, len(srcs))
	for i, r := range srcs {
		out[i] = r
		switch {
		case r.Project && ss.Cwd != "":
			out[i].Path = filepath.Join(ss.Cwd, ".docket", "rules", filepath.Base(r.Path))
		case !r.Project && userDir != "":
			out[i].Path = filepath.Join(userDir, filepath.Base(r.Path))
		}
	}
	return out
}
