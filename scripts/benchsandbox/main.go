//go:build linux

// Command benchsandbox times the start of a sandboxed `true` in one
// interleaved run: bare /bin/true, bubblewrap, `docket --version` and
// `docket sandbox` (one process per call), the in-process sandbox.Run the
// engine uses (a helper per call, and the session's sandbox server), and
// Codex's sandbox when it is installed. Run r times every candidate once,
// in an order rotated by r, before run r+1 starts, so that a burst of load on this shared machine
// hits every candidate alike and ratios taken within one run stay
// comparable. It prints medians, p10/p90 and ratios to bubblewrap as
// markdown, then (with -trace) a per-phase breakdown of sandboxed starts
// from the sandbox's start-up trace (sandbox.TraceEnv).
//
// scripts/bench-sandbox.sh builds the binaries and runs it; see
// `make bench-sandbox`.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	ws "github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/internal/realpath"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/helper"
	"github.com/docket-engine/docket/sandbox/stubs"
	"github.com/docket-engine/docket/states/policy"
	"golang.org/x/sys/unix"
)

// candidate is one thing timed: a start of `true`.
type candidate struct {
	name string
	cmd  string // how to reproduce it, for the report
	run  func() error
	ms   []float64
	// tolerant candidates (not docket's) may fail a run: it is counted
	// and reported, not timed, and the run goes on.
	tolerant bool
	failed   int
	firstErr string
}

func main() {
	if helper.IsHelper(os.Args) {
		os.Exit(helper.Main(os.Args))
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchsandbox:", err)
		os.Exit(1)
	}
}

type options struct {
	runs, warm, traceRuns, fill int
	docket, helper, base        string
	codex, workspace, out       string
	// only, when set, keeps the candidates (and traced rows) whose name it
	// matches, e.g. "bwrap|sandbox server" for a session's figure alone.
	only *regexp.Regexp
}

func run() error {
	var o options
	flag.IntVar(&o.runs, "n", 200, "interleaved runs per candidate")
	flag.IntVar(&o.warm, "warm", 10, "untimed warm-up runs per candidate")
	flag.IntVar(&o.traceRuns, "trace", 50, "traced starts per sandboxed candidate for the phase breakdown (0: none)")
	flag.StringVar(&o.docket, "docket", "bin/docket", "docket binary (with docket-sandbox-helper next to it, as `make build` installs it)")
	flag.StringVar(&o.helper, "helper", "", "helper for the in-process sandbox.Run (default: docket-sandbox-helper next to -docket)")
	flag.StringVar(&o.base, "base", "", "baseline install DIR (DIR/docket, DIR/docket-sandbox-helper) timed alongside")
	flag.StringVar(&o.codex, "codex", "", "Codex's native codex binary (default: looked for under .cache/codex)")
	flag.StringVar(&o.workspace, "workspace", "", "workspace directory (default: a fresh one under $TMPDIR)")
	flag.StringVar(&o.out, "o", "", "also write the report to this file")
	only := flag.String("only", "", "time only the candidates whose name matches this regular expression (e.g. 'bwrap|sandbox server')")
	flag.IntVar(&o.fill, "fill", 0, "first add about this many entries to /tmp (a scratch tree removed at the end), so that /tmp is past the git walk's bound")
	flag.Parse()
	if o.runs <= 0 || o.runs > 100000 || o.warm < 0 || o.warm > 1000 || o.traceRuns < 0 || o.traceRuns > 10000 || o.fill < 0 || o.fill > 1000000 {
		return errors.New("-n must be 1..100000, -warm 0..1000, -trace 0..10000, -fill 0..1000000")
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return fmt.Errorf("-only: %w", err)
		}
		o.only = re
	}
	if o.fill > 0 {
		dir, err := fillTmp(o.fill)
		if dir != "" {
			defer func() { _ = os.RemoveAll(dir) }()
		}
		if err != nil {
			return err
		}
	}
	if o.helper == "" {
		o.helper = filepath.Join(filepath.Dir(o.docket), sandbox.HelperName)
	}
	if o.workspace == "" {
		d, err := os.MkdirTemp("", "benchsandbox-ws-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(d) }()
		o.workspace = d
	}
	truebin := "/bin/true"
	// The session row keeps its temporary roots' stubs until the run ends.
	keep := &stubs.Keeper{}
	defer func() { _ = keep.Close() }()
	cands, err := candidates(o, truebin, keep)
	if err != nil {
		return err
	}
	cands = o.keep(cands)
	if len(cands) == 0 {
		return fmt.Errorf("-only %s matches no candidate", o.only)
	}
	for _, c := range cands {
		if err := c.run(); err != nil {
			return fmt.Errorf("%s fails, not timing it: %w", c.name, err)
		}
	}
	loadBefore := loadavg()
	fmt.Fprintf(os.Stderr, "timing %d candidates x %d runs, interleaved (load %s)...\n", len(cands), o.runs, loadBefore)
	for _, c := range cands {
		for i := 0; i < o.warm; i++ {
			_ = c.run() // warm-up: page cache, the first cgroup; checked above
		}
	}
	n := len(cands)
	for r := 0; r < o.runs; r++ {
		for j := 0; j < n; j++ {
			c := cands[(j+r)%n]
			start := time.Now()
			if err := c.run(); err != nil {
				if !c.tolerant {
					return fmt.Errorf("run %d: %s failed, so its time would mean nothing: %w", r, c.name, err)
				}
				if c.failed++; c.firstErr == "" {
					c.firstErr = err.Error()
				}
				continue
			}
			c.ms = append(c.ms, float64(time.Since(start).Nanoseconds())/1e6)
		}
	}
	loadAfter := loadavg()
	var b strings.Builder
	report(&b, o, cands, loadBefore, loadAfter)
	if o.traceRuns > 0 {
		if err := phases(&b, o, truebin); err != nil {
			return err
		}
	}
	fmt.Print(b.String())
	if o.out != "" {
		return os.WriteFile(o.out, []byte(b.String()), 0o644)
	}
	return nil
}

// keep is the candidates -only selects (all of them without it).
func (o options) keep(cands []*candidate) []*candidate {
	if o.only == nil {
		return cands
	}
	var out []*candidate
	for _, c := range cands {
		if o.only.MatchString(c.name) {
			out = append(out, c)
		}
	}
	return out
}

// fillTmp makes a scratch tree of about n entries under /tmp, shaped like
// what fills a shared /tmp (many small directories of a few files: build
// trees, unpacked archives): n/5 directories of four empty files each. It
// returns the tree's root, to be removed by the caller (also on an error).
func fillTmp(n int) (string, error) {
	dir, err := os.MkdirTemp("/tmp", "benchsandbox-fill-")
	if err != nil {
		return "", err
	}
	for i := range n / 5 {
		d := filepath.Join(dir, "d"+strconv.Itoa(i))
		if err := os.Mkdir(d, 0o755); err != nil {
			return dir, err
		}
		for _, f := range []string{"a", "b", "c", "e"} {
			if err := os.WriteFile(filepath.Join(d, f), nil, 0o644); err != nil {
				return dir, err
			}
		}
	}
	return dir, nil
}

// candidates lists what is timed, bare first and bubblewrap second.
func candidates(o options, truebin string, keep *stubs.Keeper) ([]*candidate, error) {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	sub := func(name string, argv ...string) *candidate {
		path := argv[0]
		return &candidate{name: name, cmd: strings.Join(argv, " "), run: func() error { return spawn(devnull, "", path, argv, os.Environ()) }}
	}
	cands := []*candidate{sub("bare true", truebin)}
	if bw, err := lookPath("bwrap"); err == nil {
		cands = append(cands, sub("bwrap read-only, no network", bw, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", truebin))
	} else {
		fmt.Fprintln(os.Stderr, "bwrap not found (apt-get install bubblewrap): no ratios to bubblewrap")
	}
	// `docket sandbox` is one process per call (issue 26): the full
	// docket's start, then the lean helper. Read-only is `docket sandbox --
	// true` as a user types it; workspace-write adds the walk for git
	// directories under its writable roots (the workspace, /tmp, $TMPDIR).
	// `docket --version` is the full binary's start alone, sandboxing none.
	for _, inst := range []struct{ prefix, docket string }{{"before: ", filepath.Join(o.base, "docket")}, {"", o.docket}} {
		if inst.prefix != "" && o.base == "" {
			continue
		}
		prefix := inst.prefix
		if prefix == "" && o.base != "" {
			prefix = "after: "
		}
		cands = append(cands,
			sub(prefix+"docket --version", inst.docket, "--version"),
			sub(prefix+"docket sandbox (read-only)", inst.docket, "sandbox", "-C", o.workspace, "--", truebin),
			sub(prefix+"docket sandbox -s workspace-write", inst.docket, "sandbox", "-s", "workspace-write", "-C", o.workspace, "--", truebin))
	}
	inproc, err := inProcess(o, truebin, keep)
	if err != nil {
		return nil, err
	}
	cands = append(cands, inproc...)
	codex := o.codex
	if codex == "" {
		if m, _ := filepath.Glob(".cache/codex/node_modules/@openai/codex-linux-*/vendor/*/bin/codex"); len(m) > 0 {
			if codex, err = filepath.Abs(m[0]); err != nil {
				return nil, err
			}
		}
	}
	if codex != "" {
		// Its -C needs a permission profile; it runs in its working directory.
		argv := []string{codex, "sandbox", "-c", `sandbox_mode="workspace-write"`, "--", truebin}
		cands = append(cands, &candidate{name: "codex sandbox (workspace-write)", cmd: "cd " + o.workspace + " && " + strings.Join(argv, " "),
			run: func() error { return spawnErr(devnull, o.workspace, codex, argv) }, tolerant: true})
	} else {
		fmt.Fprintln(os.Stderr, "Codex not installed (npm install --prefix .cache/codex @openai/codex): skipping its row")
	}
	return cands, nil
}

// enginePlan is the plan `docket sandbox -s workspace-write -C dir` and a
// session in dir give a command: the workspace, /tmp and $TMPDIR writable,
// the default limits, docket's home protected.
func enginePlan(dir string) events.SandboxPlan {
	plan := ws.SandboxPlan(policy.SandboxPolicy{Mode: policy.WorkspaceWrite}, dir, os.Getenv("TMPDIR"), false)
	plan.Limits = sandbox.DefaultLimits()
	if home, err := os.UserHomeDir(); err == nil {
		plan = ws.ProtectHome(plan, filepath.Join(home, ".docket"))
	}
	return plan
}

// inProcess is the engine's path: sandbox.Run with the machine probed once
// and the lean helper, as engine.ProcessRunner calls it.
//
// keep holds the stubs of the temporary roots across the session row's
// calls, as a session does (engine/session: sharedTempRoots); its owner
// closes it, which removes them.
func inProcess(o options, truebin string, keep *stubs.Keeper) ([]*candidate, error) {
	caps := sandbox.Probe()
	plan := enginePlan(o.workspace)
	if err := caps.Check(plan); err != nil {
		return nil, fmt.Errorf("in-process sandbox.Run: %w", err)
	}
	req := sandbox.Request{Argv: []string{truebin}, Cwd: o.workspace, Plan: plan, HelperPath: o.helper, Caps: &caps, OutputCap: 1}
	call := func(r sandbox.Request) error {
		out, err := sandbox.Run(context.Background(), r)
		if err != nil {
			return err
		}
		if out.ExitCode != 0 || out.SandboxError != "" {
			return fmt.Errorf("exit %d %s %s", out.ExitCode, out.SandboxError, out.Stderr)
		}
		return nil
	}
	desc := fmt.Sprintf("sandbox.Run, workspace-write, roots %v, default limits, helper %s", plan.WritableRoots, o.helper)
	// A session's calls: the walk for git directories kept between them,
	// as cmd/docket's session wires the engine (gitwalk.Cache).
	session := req
	session.GitWalks = &gitwalk.Cache{}
	// What cmd/docket's session does now: the kept walk and the session's
	// sandbox servers (sandbox.Servers; this binary is the server).
	served := req
	served.GitWalks = &gitwalk.Cache{}
	served.Launcher = &sandbox.Servers{}
	served.Stubs, served.StubsIn = keep, tempRoots(o.workspace)
	if home, err := os.UserHomeDir(); err == nil {
		// Docket's own records: a benchmark killed midway leaves kept
		// stubs the next docket start removes.
		served.StubRecords = filepath.Join(home, ".docket", "stubs")
	}
	return []*candidate{
		{name: "in-process sandbox.Run, workspace-write, walk per call", cmd: desc + ", a fresh walk for git directories on every call", run: func() error { return call(req) }},
		{name: "in-process sandbox.Run, workspace-write, session walk cache", cmd: desc + ", Request.GitWalks kept across calls", run: func() error { return call(session) }},
		{name: "in-process sandbox.Run, workspace-write, session walk cache and sandbox server", cmd: desc + ", Request.GitWalks, Request.Launcher (sandbox.Servers) and the temporary roots' stubs kept across calls", run: func() error { return call(served) }},
	}, nil
}

// tempRoots are /tmp and an absolute $TMPDIR, resolved, but for the
// workspace itself: the roots whose stubs a session keeps.
func tempRoots(workspace string) []string {
	var out []string
	ws := realpath.Resolve(workspace)
	for _, c := range []string{"/tmp", os.Getenv("TMPDIR")} {
		if !filepath.IsAbs(c) {
			continue
		}
		r := realpath.Resolve(c)
		if r == ws || slices.Contains(out, r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// spawn runs argv with every stream on /dev/null and fails unless it exits 0.
func spawn(devnull *os.File, dir, path string, argv, env []string) error {
	fd := devnull.Fd()
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Dir: dir, Env: env, Files: []uintptr{fd, fd, fd}})
	if err != nil {
		return err
	}
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return err
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		return fmt.Errorf("%s: %v", strings.Join(argv, " "), ws)
	}
	return nil
}

// spawnErr is spawn keeping the command's stderr for the error.
func spawnErr(devnull *os.File, dir, path string, argv []string) error {
	errf, err := os.CreateTemp("", "benchsandbox-stderr-")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(errf.Name()) }()
	defer func() { _ = errf.Close() }()
	fd := devnull.Fd()
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Dir: dir, Env: os.Environ(), Files: []uintptr{fd, fd, errf.Fd()}})
	if err != nil {
		return err
	}
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return err
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		b, _ := os.ReadFile(errf.Name())
		return fmt.Errorf("exit status %d: %s", ws.ExitStatus(), strings.TrimSpace(string(b)))
	}
	return nil
}

func lookPath(name string) (string, error) {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not in PATH", name)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// quantile of sorted xs, nearest rank.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(q*float64(len(xs)-1) + 0.5)
	return xs[i]
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func report(w io.Writer, o options, cands []*candidate, loadBefore, loadAfter string) {
	var bwrap float64
	for _, c := range cands {
		if strings.HasPrefix(c.name, "bwrap") {
			bwrap = median(c.ms)
		}
	}
	bare := median(cands[0].ms)
	host, _ := os.Hostname()
	var uts unix.Utsname
	_ = unix.Uname(&uts)
	fmt.Fprintf(w, "#### Sandbox start-up: `true`, %d interleaved runs per candidate\n\n", o.runs)
	fmt.Fprintf(w, "Machine: %s %s (%s), load %s at the start, %s at the end; %s.\n",
		unix.ByteSliceToString(uts.Sysname[:]), unix.ByteSliceToString(uts.Release[:]), host, loadBefore, loadAfter, time.Now().UTC().Format("2006-01-02T15:04Z"))
	fmt.Fprintf(w, "Timer: Go's monotonic clock around fork/exec+wait4 (subprocesses) or the call (in-process).\n\n")
	fmt.Fprintln(w, "| candidate | median (ms) | p10–p90 (ms) | over bare (ms) | vs bwrap |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, c := range cands {
		s := append([]float64(nil), c.ms...)
		sort.Float64s(s)
		m := median(s)
		ratio := "n/a"
		if bwrap > 0 {
			ratio = fmt.Sprintf("%.2f", m/bwrap)
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f–%.2f | %.2f | %s |\n", c.name, m, quantile(s, 0.1), quantile(s, 0.9), m-bare, ratio)
	}
	for _, c := range cands {
		if c.failed > 0 {
			fmt.Fprintf(w, "\n%s failed %d of %d runs (not timed); the first: %s\n", c.name, c.failed, o.runs, c.firstErr)
		}
	}
	fmt.Fprintln(w, "\nCandidates:")
	fmt.Fprintln(w)
	for _, c := range cands {
		fmt.Fprintf(w, "- %s: `%s`\n", c.name, c.cmd)
	}
	fmt.Fprintln(w)
}

// phases runs traced starts of the in-process and the CLI candidates and
// prints the median time of each phase (from the previous mark to this one).
func phases(w io.Writer, o options, truebin string) error {
	dir, err := os.MkdirTemp("", "benchsandbox-trace-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	file := filepath.Join(dir, "trace")
	if err := os.Setenv(sandbox.TraceEnv, file); err != nil {
		return err
	}
	defer func() { _ = os.Unsetenv(sandbox.TraceEnv) }()
	keep := &stubs.Keeper{}
	defer func() { _ = keep.Close() }()
	inproc, err := inProcess(o, truebin, keep)
	if err != nil {
		return err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer func() { _ = devnull.Close() }()
	// The CLI's phases: one docket process per call.
	cli := func(args ...string) func() error {
		argv := append([]string{o.docket, "sandbox", "-C", o.workspace}, args...)
		argv = append(argv, "--", truebin)
		return func() error {
			mark(file, "cli.spawn")
			err := spawn(devnull, "", o.docket, argv, os.Environ())
			mark(file, "cli.exit")
			return err
		}
	}
	for _, t := range []struct {
		name string
		run  func() error
	}{{inproc[0].name, inproc[0].run}, {inproc[1].name, inproc[1].run}, {inproc[2].name, inproc[2].run},
		{"docket sandbox (read-only)", cli()}, {"docket sandbox -s workspace-write", cli("-s", "workspace-write")}} {
		if o.only != nil && !o.only.MatchString(t.name) {
			continue
		}
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			return err
		}
		for i := 0; i < o.traceRuns; i++ {
			if err := t.run(); err != nil {
				return fmt.Errorf("traced %s: %w", t.name, err)
			}
		}
		calls, err := readTrace(file)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "#### Phases of a sandboxed start: %s (%d traced calls, medians)\n\n", t.name, len(calls))
		fmt.Fprintln(w, "| phase (from the previous mark to this one) | where | median (ms) |")
		fmt.Fprintln(w, "|---|---|---:|")
		order, per := phaseTimes(calls)
		var total float64
		for _, name := range order {
			m := median(per[name])
			total += m
			fmt.Fprintf(w, "| %s | %s | %.3f |\n", name, where(name), m)
		}
		fmt.Fprintf(w, "| sum of medians | | %.3f |\n\n", total)
	}
	return nil
}

// mark appends a driver-side stamp in the trace's format.
func mark(file, phase string) {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	_, _ = fmt.Fprintf(f, "%d %s %d\n", os.Getpid(), phase, ts.Nano())
	_ = f.Close()
}

type stamp struct {
	phase string
	ns    int64
}

// readTrace splits the trace into calls, each starting at its first
// "cli.spawn" or "run.start", the stamps sorted by time.
func readTrace(file string) ([][]stamp, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var all []stamp
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			return nil, fmt.Errorf("%s:%d: want \"pid phase ns\", got %q", file, line, sc.Text())
		}
		ns, err := strconv.ParseInt(fs[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, line, err)
		}
		all = append(all, stamp{fs[1], ns})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].ns < all[j].ns })
	var calls [][]stamp
	for _, s := range all {
		if s.phase == "cli.spawn" || (s.phase == "run.start" && (len(calls) == 0 || calls[len(calls)-1][0].phase != "cli.spawn")) {
			calls = append(calls, nil)
		}
		if len(calls) > 0 {
			calls[len(calls)-1] = append(calls[len(calls)-1], s)
		}
	}
	return calls, nil
}

// phaseTimes gives each phase's durations over the calls, in the order of
// the first call.
func phaseTimes(calls [][]stamp) ([]string, map[string][]float64) {
	var order []string
	per := map[string][]float64{}
	for _, c := range calls {
		for i := 1; i < len(c); i++ {
			name := c[i].phase
			if _, ok := per[name]; !ok {
				order = append(order, name)
			}
			per[name] = append(per[name], float64(c[i].ns-c[i-1].ns)/1e6)
		}
	}
	return order, per
}

// where says which process a phase ends in.
func where(phase string) string {
	switch {
	case strings.HasPrefix(phase, "cli."):
		return "driver"
	case phase == "helper.main", phase == "limits", phase == "mounts", phase == "caps", phase == "landlock",
		phase == "seccomp", phase == "init.exec", phase == "command.exec", phase == "command.fork",
		phase == "command.started", phase == "command.exit":
		return "helper"
	}
	return "docket"
}
