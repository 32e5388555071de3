package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// The fault storm: random kill -9s of `docket exec` over a scripted session
// with parallel calls, approvals, an approval timeout, "approve and save a
// prefix rule" amendments and an MCP call; each killed session is resumed,
// verify-replayed and audited, and every invariant is checked:
//
//   - no command ran twice (each appends "<call> <sandbox>" to runs.log);
//   - every call reaches done with a tool output;
//   - `docket replay` verifies the journal resume accepted;
//   - `docket audit --json` accounts for every call of the journal.
//
// The last three hold for each journal of the trial: a subagent tree
// (shapeTree) has one per session.
//
// A kill is either at a named fault point (the docketfault build's
// DOCKET_CRASH_AT, picked from the points a clean run passed) or after a
// random delay. DOCKET_STORM_TRIALS sets the number of trials (10 in the
// normal run; `make fault` runs many more) and DOCKET_STORM_SEED the seed,
// which the test prints so that a failing storm can be run again.
// DOCKET_STORM_BIN replaces the binary under test for exec, resume, replay
// and audit (to measure an older build; build it with -tags docketfault);
// DOCKET_STORM_DECISIONS replaces exec's --decisions (to leave a class of
// answers out and measure the others); DOCKET_STORM_HANG (default 2m) is how long resume, replay or audit may
// run before the storm calls it hung; DOCKET_STORM_KEEP=DIR keeps each
// failing trial's journals and runs.log there; DOCKET_STORM_SHAPE (one of
// stormShapes) runs every trial in that one shape.

// stormDecisions answer the exec's first approvals; the rest wait at the
// terminal until approval_timeout_sec runs out.
const stormDecisions = "approved,approved_for_session,approved,approved_execpolicy_amendment,approved,approved,approved_execpolicy_amendment,approved,denied,approved,approved_execpolicy_amendment,approved,approved"

// stormScript is the session: 15 calls in 7 responses, four of them with
// parallel calls.
func stormScript(mcp bool) string {
	mark := func(id string) string {
		return fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["./mark.sh",%q]}}`, id, id)
	}
	slow := func(id string) string {
		return fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["./mark.sh",%q,"0.3"]}}`, id, id)
	}
	resp := func(items ...string) string { return `{"output":[` + strings.Join(items, ",") + `]}` }
	lines := []string{
		resp(mark("a1"), slow("a2"), mark("a3")),
		resp(mark("b1")),
		resp(mark("b2"), slow("b3")),
		resp(mark("c1"), mark("c2"), mark("c3"), slow("c4")),
		resp(mark("d1")),
	}
	if mcp {
		lines = append(lines, resp(mark("e1"), `{"type":"function_call","call_id":"m1","name":"mcp__everything__echo","arguments":{"message":"storm"}}`))
	} else {
		lines = append(lines, resp(mark("e1"), mark("m1")))
	}
	last := resp(mark("t1")) // the decisions have run out: this one times out
	lines = append(lines, last, `{"output":[{"type":"message","content":"storm over"}]}`)
	return strings.Join(lines, "\n") + "\n"
}

// markScript appends "<call> <sandbox>" to runs.log, after an optional
// sleep, so a call that ran twice shows up twice.
const markScript = "#!/bin/sh\n[ -n \"$2\" ] && sleep \"$2\"\necho \"$1 ${DOCKET_SANDBOX:-none}\" >> runs.log\n"

type storm struct {
	bin, fault string // binaries under test
	mcp        string // the MCP test server, "" without
	script     string
	hang       time.Duration // resume, replay and audit are killed past it
	seed       uint64
	decisions  string // exec's --decisions
	tree       string // the subagent tree's script (shapeTree)
}

type stormTrial struct {
	home, ws string
	crash    string // DOCKET_CRASH_AT, or "" for a timed kill
	after    time.Duration
	shape    string // one of stormShapes (storm_shapes_test.go); "" is exec
	token    string // names the hooks' processes (shapeHooks)
	script   string // the model script; s.script when ""
	extra    []string
}

// modelScript is the trial's model script.
func (s *storm) modelScript(tr *stormTrial) string {
	if tr.script != "" {
		return tr.script
	}
	return s.script
}

func newStorm(t *testing.T) *storm {
	s := &storm{bin: docketBin, fault: faultBin, hang: 2 * time.Minute, decisions: stormDecisions}
	if v := os.Getenv("DOCKET_STORM_DECISIONS"); v != "" {
		s.decisions = v
	}
	if v := os.Getenv("DOCKET_STORM_HANG"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("DOCKET_STORM_HANG=%q: want a duration such as 20s", v)
		}
		s.hang = d
	}
	if b := os.Getenv("DOCKET_STORM_BIN"); b != "" {
		s.bin, s.fault = b, b
	}
	dir, _ := filepath.Abs("../../../.cache/mcp")
	if bin := filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything"); fileExists(bin) {
		s.mcp = bin
	} else {
		t.Logf("no MCP test server at %s: the storm runs without an MCP call", bin)
	}
	s.script = filepath.Join(t.TempDir(), "storm.jsonl")
	if err := os.WriteFile(s.script, []byte(stormScript(s.mcp != "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (s *storm) newTrial(t *testing.T) *stormTrial {
	tr := &stormTrial{home: t.TempDir(), ws: t.TempDir()}
	if err := os.WriteFile(filepath.Join(tr.ws, "mark.sh"), []byte(markScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if s.mcp != "" {
		cfg := fmt.Sprintf("[mcp_servers.everything]\ncommand = %q\nstartup_timeout_sec = 60\nenabled_tools = [\"echo\"]\napproval = \"always\"\n", s.mcp)
		if err := os.WriteFile(filepath.Join(tr.home, "config.toml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// exec runs the session with a terminal for stdin (so that approvals past
// the --decisions wait for a person and time out after a second), killed
// at tr.crash or after tr.after; env adds to the environment.
func (s *storm) exec(t *testing.T, tr *stormTrial, env ...string) result {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	args := append([]string{"exec", "--skip-git-repo-check", "--home", tr.home, "-C", tr.ws, "-a", "untrusted", "-s", "workspace-write",
		"-c", "approval_timeout_sec=1", "--model-script", s.modelScript(tr), "--decisions", s.decisions}, tr.extra...)
	cmd := exec.Command(s.fault, append(args, "go")...)
	cmd.Env = append(os.Environ(), env...)
	if tr.crash != "" {
		cmd.Env = append(cmd.Env, "DOCKET_CRASH_AT="+tr.crash)
	}
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	go func() { _, _ = io.Copy(io.Discard, ptmx) }() // the prompts
	var timer *time.Timer
	if tr.crash == "" && tr.after > 0 {
		timer = time.AfterFunc(tr.after, func() { _ = cmd.Process.Kill() })
	}
	err = cmd.Wait()
	if timer != nil {
		timer.Stop()
	}
	r := result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.signaled = true
	} else if err != nil && r.code <= 0 {
		t.Fatalf("exec: %v", err)
	}
	return r
}

// docket runs the binary under test, killed if it hangs past s.hang (a
// hang is what the storm reports then, not a test timeout).
func (s *storm) docket(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Env = append(os.Environ(), "DOCKET_CRASH_AT=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hung := false
	timer := time.AfterFunc(s.hang, func() { hung = true; _ = cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	r := result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	if hung {
		r.code, r.stderr = -1, fmt.Sprintf("hung: killed after %s", s.hang)
	} else if err != nil && r.code <= 0 {
		t.Fatalf("%s: %v", args[0], err)
	}
	return r
}

// points runs the session once cleanly and returns every fault point it
// passed, numbered by occurrence.
func (s *storm) points(t *testing.T) []string {
	tr := s.newTrial(t)
	pts := s.faultLog(t, tr)
	recs := readJournal(t, stormJournal(t, tr))
	kinds := map[string]bool{}
	for _, r := range recs {
		if b, err := r.Decode(); err == nil {
			switch v := b.(type) {
			case *events.Decision:
				kinds["decision:"+string(v.Decision)] = true
			case *events.ExecOutcome:
				if v.CallID == "m1" {
					kinds["mcp"] = true
				}
			}
		}
	}
	want := []string{"decision:approved", "decision:approved_for_session", "decision:approved_execpolicy_amendment", "decision:timed_out"}
	if s.mcp != "" {
		want = append(want, "mcp")
	}
	for _, k := range want {
		if !kinds[k] && s.decisions == stormDecisions {
			t.Fatalf("the clean storm session has no %s: the scenario no longer covers it", k)
		}
	}
	return pts
}

// faultLog runs the trial's session once cleanly and returns every fault
// point it passed, numbered by occurrence.
func (s *storm) faultLog(t *testing.T, tr *stormTrial) []string {
	logFile := filepath.Join(t.TempDir(), "points.log")
	r := s.exec(t, tr, "DOCKET_FAULT_LOG="+logFile)
	if r.code != 0 {
		t.Fatalf("clean storm session exited %d:\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var pts []string
	for _, p := range strings.Fields(string(b)) {
		seen[p]++
		pts = append(pts, fmt.Sprintf("%s@%d", p, seen[p]))
	}
	return pts
}

func stormJournal(t *testing.T, tr *stormTrial) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(tr.home, "sessions", "*", "*", "*", "*.docket"))
	if len(matches) != 1 {
		t.Fatalf("want one journal under %s, found %v", tr.home, matches)
	}
	return matches[0]
}

// stormJournals returns every journal of the trial: one, or a subagent
// tree's.
func stormJournals(t *testing.T, tr *stormTrial) []string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(tr.home, "sessions", "*", "*", "*", "*.docket"))
	if len(matches) == 0 {
		t.Fatalf("no journal under %s", tr.home)
	}
	return matches
}

// stormRoot returns the journal of the trial's top-level session, the one
// to resume: the only one whose session_started names no parent.
func stormRoot(t *testing.T, tr *stormTrial) string {
	t.Helper()
	all := stormJournals(t, tr)
	if len(all) == 1 {
		return all[0]
	}
	var roots []string
	for _, p := range all {
		if parent, err := journalParent(p); err == nil && parent == nil {
			roots = append(roots, p)
		}
	}
	if len(roots) != 1 {
		t.Fatalf("want one top-level journal under %s, found %v of %v", tr.home, roots, all)
	}
	return roots[0]
}

var errFirstRecord = errors.New("first record read")

// journalParent reads the parent link of a journal's session_started.
func journalParent(path string) (*events.ParentLink, error) {
	var ss *events.SessionStarted
	err := journal.Scan(path, 1, func(r events.Record) error {
		b, err := r.Decode()
		if err != nil {
			return err
		}
		v, ok := b.(*events.SessionStarted)
		if !ok {
			return fmt.Errorf("%s: the first record is %T, not session_started", path, b)
		}
		ss = v
		return errFirstRecord
	})
	if ss == nil {
		if err == nil {
			err = fmt.Errorf("%s: no records", path)
		}
		return nil, err
	}
	return ss.Parent, nil
}

// keep copies a failing trial's journal and marker file to
// $DOCKET_STORM_KEEP/SEED-TRIAL/, for a look after the test's own
// directories are gone.
func (s *storm) keep(t *testing.T, tr *stormTrial, trial int) {
	dir := os.Getenv("DOCKET_STORM_KEEP")
	if dir == "" {
		return
	}
	dst := filepath.Join(dir, fmt.Sprintf("%d-%d", s.seed, trial))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Logf("keep trial %d: %v", trial, err)
		return
	}
	matches, _ := filepath.Glob(filepath.Join(tr.home, "sessions", "*", "*", "*", "*.docket"))
	for _, src := range append(matches, filepath.Join(tr.ws, "runs.log")) {
		if b, err := os.ReadFile(src); err == nil {
			_ = os.WriteFile(filepath.Join(dst, filepath.Base(src)), b, 0o644)
		}
	}
	t.Logf("trial %d kept in %s", trial, dst)
}

// stormFailure is one broken invariant of one trial.
type stormFailure struct {
	class, detail string
}

// trial kills one session, resumes it, and checks every invariant; it
// returns the broken ones (nil: all held, or killed before the first
// commit, when nothing may have run).
func (s *storm) trial(t *testing.T, tr *stormTrial) []stormFailure {
	var first result
	switch tr.shape {
	case shapeChat:
		first = s.chat(t, tr)
	case shapeHooks:
		s.withHooks(t, tr)
		first = s.exec(t, tr)
	default:
		first = s.exec(t, tr)
	}
	time.Sleep(400 * time.Millisecond) // an orphaned command finishes its write
	var fails []stormFailure
	fail := func(class, format string, args ...any) {
		fails = append(fails, stormFailure{class: class, detail: fmt.Sprintf(format, args...)})
	}
	if left := hookLeftovers(t, tr); len(left) > 0 {
		// A hook's background process may outlive a killed docket, as
		// docs/sandbox.md says (dies-with-docket:leader-only); never one
		// that finished.
		if !first.signaled {
			fail("hook-outlived", "processes of the hooks outlived a docket that was not killed: pids %v", left)
		}
		for _, p := range left {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	matches, _ := filepath.Glob(filepath.Join(tr.home, "sessions", "*", "*", "*", "*.docket"))
	if first.signaled && len(matches) == 0 {
		// Killed before the journal was made.
		if b, _ := os.ReadFile(filepath.Join(tr.ws, "runs.log")); len(b) > 0 {
			fail("ran-before-journal", "commands ran before the journal existed: %s", b)
		}
		return fails
	}
	path := stormRoot(t, tr)
	if first.signaled {
		if n, err := countRecords(path); err != nil || n == 0 {
			// Killed while the journal was being made or before its first
			// commit: nothing may have run.
			if b, _ := os.ReadFile(filepath.Join(tr.ws, "runs.log")); len(b) > 0 {
				fail("ran-before-journal", "commands ran before anything was journaled: %s", b)
			}
			return fails
		}
		if tr.shape == shapeRacing {
			for _, f := range s.racingResumes(path, tr, 3) {
				fail("racing-resume", "%s", f)
			}
		}
		// Resume as an operator would: the same script; enough answers.
		// After racing resumes this finds the session finished.
		var last result
		for i := 0; i < 3; i++ {
			last = s.docket(t, "resume", path, "--home", tr.home, "--model-script", s.modelScript(tr),
				"--decisions", strings.TrimSuffix(strings.Repeat("approved,", 16), ","))
			if last.code == 0 {
				break
			}
		}
		if last.code != 0 {
			fail("resume", "resume exited %d: %s", last.code, lastLine(last.stderr))
			return fails
		}
	} else if first.code != 0 && tr.shape != shapeChat {
		fail("exec", "exec exited %d without being killed: %s", first.code, lastLine(first.stderr))
		return fails
	}
	// No command ran twice.
	b, _ := os.ReadFile(filepath.Join(tr.ws, "runs.log"))
	ran := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			ran[f[0]]++
		}
	}
	for call, n := range ran {
		if n > 1 {
			fail("ran-twice", "call %s ran %d times", call, n)
		}
	}
	// The other checks hold for every journal: the session's, and each
	// subagent's (shapeTree).
	root := path
	for _, path := range stormJournals(t, tr) {
		if path != root {
			if n, err := countRecords(path); err != nil || n == 0 {
				// A subagent killed while its journal was being made: its
				// parent journaled the child's id before making it, so the
				// resume had to make it and run the child; a journal still
				// unmade is a subagent lost.
				fail("subagent-unmade", "%s: the resumed tree left a subagent's journal unmade (%d records, %v)", filepath.Base(path), n, err)
				continue
			}
		}
		fails = append(fails, s.checkJournal(t, tr, path)...)
	}
	return fails
}

// checkJournal checks one journal after its session finished: every call
// reaches done with an output, replay verifies it and the audit accounts
// for every call.
func (s *storm) checkJournal(t *testing.T, tr *stormTrial, path string) []stormFailure {
	var fails []stormFailure
	fail := func(class, format string, args ...any) {
		fails = append(fails, stormFailure{class: class, detail: filepath.Base(path) + ": " + fmt.Sprintf(format, args...)})
	}
	recs := readJournal(t, path)
	last, outputs := map[string]string{}, map[string]bool{}
	for _, r := range recs {
		b, _ := r.Decode()
		switch v := b.(type) {
		case *events.Transition:
			last[v.CallID] = v.To
		case *events.ToolOutput:
			outputs[v.CallID] = true
		}
	}
	for call, st := range last {
		if st != "done" || !outputs[call] {
			fail("not-final", "call %s ended in %s (output recorded: %v)", call, st, outputs[call])
		}
	}
	// Replay verifies.
	if r := s.docket(t, "replay", path, "--home", tr.home); r.code != 0 {
		fail("replay", "replay exited %d: %s", r.code, strings.TrimSpace(r.stdout+r.stderr))
	}
	// The audit accounts for every call.
	r := s.docket(t, "audit", path, "--home", tr.home, "--json")
	var a struct {
		Calls []struct {
			CallID     string `json:"call_id"`
			FinalState string `json:"final_state"`
		} `json:"calls"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &a) != nil {
		fail("audit", "audit exited %d: %s", r.code, lastLine(r.stderr))
	} else {
		got := map[string]string{}
		for _, c := range a.Calls {
			got[c.CallID] = c.FinalState
		}
		for call, st := range last {
			if got[call] != st {
				fail("audit", "audit says call %s is %q; the journal says %q", call, got[call], st)
			}
		}
	}
	return fails
}

// countRecords reads the journal without failing the test: a file the
// kill left before its first commit is a finding, not a harness error.
func countRecords(path string) (int, error) {
	n := 0
	err := journal.Scan(path, 1, func(events.Record) error { n++; return nil })
	return n, err
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestFaultStorm is the bounded storm of the normal test run; `make fault`
// runs a long one.
func TestFaultStorm(t *testing.T) {
	t.Parallel()
	trials := 10
	if v := os.Getenv("DOCKET_STORM_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100000 {
			t.Fatalf("DOCKET_STORM_TRIALS=%q: want a count from 1 to 100000", v)
		}
		trials = n
	}
	seed := uint64(1)
	if v := os.Getenv("DOCKET_STORM_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("DOCKET_STORM_SEED=%q: want an unsigned integer", v)
		}
		seed = n
	}
	shapes := stormShapes
	if v := os.Getenv("DOCKET_STORM_SHAPE"); v != "" {
		if !slices.Contains(stormShapes, v) {
			t.Fatalf("DOCKET_STORM_SHAPE=%q: want one of %q", v, stormShapes)
		}
		shapes = []string{v}
	}
	t.Logf("fault storm: %d trials, DOCKET_STORM_SEED=%d", trials, seed)
	s := newStorm(t)
	s.seed = seed
	pts := s.points(t)
	var treePts []string
	var treeTook time.Duration
	if slices.Contains(shapes, shapeTree) {
		treePts, treeTook = s.treePoints(t)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	byClass := map[string]int{}
	failed := 0
	for i := 0; i < trials; i++ {
		tr := s.newTrial(t)
		tr.shape = shapes[rng.IntN(len(shapes))]
		shapePts, span := pts, 5000
		if tr.shape == shapeTree {
			s.treeTrial(tr)
			shapePts, span = treePts, max(int(treeTook.Milliseconds()), 1)
		}
		// Half the trials die at a named point, most others after a delay
		// within the session's length; one in eight is not killed, so the
		// session's end (the approval timeout included) is replayed too.
		kill := "none"
		switch n := rng.IntN(8); {
		case n < 4:
			tr.crash = shapePts[rng.IntN(len(shapePts))]
			kill = "at " + tr.crash
		case n < 7:
			tr.after = time.Duration(50+rng.IntN(span)) * time.Millisecond
			kill = "after " + tr.after.String()
		}
		fails := s.trial(t, tr)
		if len(fails) == 0 {
			n, _ := filepath.Glob(filepath.Join(tr.home, "sessions", "*", "*", "*", "*.docket"))
			t.Logf("trial %d (%s, kill %s): every invariant held over %d journals", i, tr.shape, kill, len(n))
			continue
		}
		s.keep(t, tr, i)
		failed++
		seen := map[string]bool{}
		for _, f := range fails {
			if !seen[f.class] {
				byClass[f.class]++
				seen[f.class] = true
			}
			t.Errorf("trial %d (%s, kill %s): %s: %s", i, tr.shape, kill, f.class, f.detail)
		}
	}
	classes := make([]string, 0, len(byClass))
	for c, n := range byClass {
		classes = append(classes, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(classes)
	t.Logf("fault storm: %d of %d trials broke an invariant (by class: %s); DOCKET_STORM_SEED=%d reproduces it", failed, trials, strings.Join(classes, ", "), seed)
}
