package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/uexec"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/stubs"
	"github.com/docket-engine/docket/states/policy"
)

// unpreparedRunner hides its runner's Prepare (engine.Preparer), so that
// each call is started after its write-ahead commit, as before calls were
// prepared during it: the benchmark's before, in the same binary.
type unpreparedRunner struct{ engine.Runner }

// serialTrueSession is a session whose scripted model asks for calls
// sequential `bash -c true` calls, one per response, run for real under
// mode with the real bbolt journal in a temp home;
// kept gives the runner the session's kept walk and sandbox servers, as
// engine/session wires a session (without them each sandboxed call walks
// the roots and starts a helper of its own); unprepared starts each call
// only after its write-ahead commit (unpreparedRunner).
func serialTrueSession(b *testing.B, calls int, mode string, kept, unprepared bool, tool string, wrap func(model.Model) model.Model) (*engine.Session, *journal.Journal) {
	b.Helper()
	var lines []string
	for i := 0; i < calls; i++ {
		if tool == engine.ExecCommandName {
			// What Codex 0.171's models call; not a login shell, so that
			// the row compares with shell's `bash -c true`.
			lines = append(lines, fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c%d","name":"exec_command","arguments":{"cmd":"true","shell":"bash","login":false,"yield_time_ms":30000}}]}`, i))
			continue
		}
		lines = append(lines, fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c%d","name":"shell","arguments":{"command":["bash","-c","true"]}}]}`, i))
	}
	lines = append(lines, `{"output":[{"type":"message","content":"done"}]}`)
	mdl, err := script.Parse("bench", []byte(strings.Join(lines, "\n")))
	if err != nil {
		b.Fatal(err)
	}
	var mm model.Model = mdl
	if wrap != nil {
		mm = wrap(mdl)
	}
	home, ws := b.TempDir(), b.TempDir()
	m, err := policy.ParseSandboxMode(mode)
	if err != nil {
		b.Fatal(err)
	}
	j, err := journal.Create(home, "bench", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	exe, _ := os.Executable()
	// Probed once, as the CLI does (cmd/docket/session.go): a nil Caps
	// would probe on every call.
	caps := sandbox.Probe()
	procs := &uexec.Table{}
	b.Cleanup(func() { _ = procs.Close() })
	runner := &engine.ProcessRunner{HelperPath: exe, Caps: &caps, Processes: procs}
	if kept {
		walks, servers, kept := &gitwalk.Cache{}, &sandbox.Servers{Binary: exe}, &stubs.Keeper{}
		b.Cleanup(func() { _ = servers.Close(); _ = walks.Close(); _ = kept.Close() })
		runner.GitWalks, runner.Launcher = walks, servers
		// As engine/session: the stubs directly in the temporary root are
		// the session's, those of the workspace (below it) the call's.
		runner.TempStubs, runner.TempRoots = kept, []string{realTempDir(b)}
	}
	var r engine.Runner = runner
	if unprepared {
		r = unpreparedRunner{runner}
	}
	s, err := engine.Start(engine.Config{SessionID: "bench", Home: home, Cwd: ws,
		Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: mode},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: m}, ws, "", false), Model: mm,
		Approver: &enginetest.ScriptedApprover{}, Runner: r,
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}, engine.ExecCommandTool{}, engine.WriteStdinTool{}}}, j)
	if err != nil {
		b.Fatal(err)
	}
	return s, j
}

// yardModel runs one yardstick item (yardstick.item) before each response
// of the scripted model, so that the engine's calls and the yardstick
// alternate one by one and share whatever load the machine has.
type yardModel struct {
	inner model.Model
	y     *yardstick
}

func (m yardModel) Respond(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Response, error) {
	if err := m.y.item(); err != nil {
		return model.Response{}, err
	}
	return m.inner.Respond(ctx, req, onDelta)
}

// yardstick is a bare `bash -c true` fork/exec plus one fsync of a file on
// the journal's filesystem, timed.
type yardstick struct {
	f     *os.File
	n     int
	spent time.Duration
}

func (y *yardstick) item() error {
	t0 := time.Now()
	if err := exec.Command("bash", "-c", "true").Run(); err != nil {
		return err
	}
	if _, err := y.f.WriteAt([]byte("x"), int64(y.n%4096)); err != nil {
		return err
	}
	if err := y.f.Sync(); err != nil {
		return err
	}
	y.n++
	y.spent += time.Since(t0)
	return nil
}

// BenchmarkSerialCallRatio is issue 17's end-to-end target at the engine
// level: a serial session's executed `bash -c true` call (real process,
// real journal) against the yardstick, one yardstick item before each
// model response, so both see the same load. ms/call excludes the
// yardstick; ratio is ms/call over the yardstick's ms/item (target: at
// most 2 without a sandbox; the sandboxed row is the sandbox's start-up).
// The "session" row is workspace-write as a session runs it, with the
// kept walk and the sandbox servers (issue 26: at most 2× the
// danger-full-access row); the plain workspace-write row walks and starts
// a helper per call. The "session-unprepared" row is the session row with
// each call started only after its write-ahead commit (before issue 26's
// preparation during it), for an A/B in one binary.
func BenchmarkSerialCallRatio(b *testing.B) {
	warnLeftStubs(b)
	for _, row := range []struct {
		name, mode       string
		kept, unprepared bool
		tool             string
	}{
		{"danger-full-access", "danger-full-access", false, false, "shell"},
		{"workspace-write", "workspace-write", false, false, "shell"},
		{"workspace-write-session", "workspace-write", true, false, "shell"},
		{"workspace-write-session-unprepared", "workspace-write", true, true, "shell"},
		// exec_command, the one command tool Codex 0.171's models get:
		// each call a process on the session's table that exits within
		// its yield.
		{"exec_command/danger-full-access", "danger-full-access", false, false, engine.ExecCommandName},
		{"exec_command/workspace-write-session", "workspace-write", true, false, engine.ExecCommandName},
	} {
		mode := row.mode
		b.Run(row.name, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "fsync.dat"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			y := &yardstick{f: f}
			s, j := serialTrueSession(b, b.N, mode, row.kept, row.unprepared, row.tool, func(m model.Model) model.Model { return yardModel{inner: m, y: y} })
			defer j.Close()
			start := j.Commits()
			b.ResetTimer()
			t0 := time.Now()
			res, err := s.Turn(context.Background(), "go")
			total := time.Since(t0)
			b.StopTimer()
			if err != nil || res.Status != events.TurnCompleted {
				b.Fatalf("turn: %v %+v", err, res)
			}
			// A call the sandbox refused is quick: count only calls that ran.
			if ran := ranClean(b, j); ran != b.N {
				b.Fatalf("%d of %d calls ran and exited 0", ran, b.N)
			}
			perCall := float64(total-y.spent) / float64(b.N) / 1e6
			perItem := float64(y.spent) / float64(y.n) / 1e6
			b.ReportMetric(perCall, "ms/call")
			b.ReportMetric(perItem, "yard-ms/item")
			b.ReportMetric(perCall/perItem, "ratio")
			// One write-ahead commit per call, plus the turn's two.
			b.ReportMetric(float64(j.Commits()-start)/float64(b.N), "commits/call")
		})
	}
}

// warnLeftStubs says when the temporary root already holds empty
// directories at the protected names (a killed run's stubs no record
// names): the sandboxed rows then bind them instead of making and removing
// them per call, and read cheaper than on a clean machine.
func warnLeftStubs(b *testing.B) {
	for _, name := range policy.ProtectedNames() {
		p := filepath.Join(os.TempDir(), name)
		if entries, err := os.ReadDir(p); err == nil && len(entries) == 0 {
			b.Logf("warning: %s already exists (empty): the sandboxed rows will not make or remove that stub and read cheaper than on a clean machine", p)
		}
	}
}

// realTempDir is os.TempDir resolved, as a session's plan resolves its
// temporary roots.
func realTempDir(b *testing.B) string {
	d, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// ranClean counts the journal's outcomes of commands that ran and exited 0
// with no sandbox error.
func ranClean(b *testing.B, j *journal.Journal) int {
	recs, err := j.All()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		body, err := r.Decode()
		if err != nil {
			b.Fatal(err)
		}
		if o, ok := body.(*events.ExecOutcome); ok && o.ExitCode == 0 && o.SandboxError == "" && o.Error == "" {
			n++
		}
	}
	return n
}
