package rules

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/docket-engine/docket/events"
)

// DefaultMaxSteps bounds the Starlark steps one file may take; a rules file
// needs a few dozen per rule, so this only stops runaway loops.
const DefaultMaxSteps = 10_000_000

// LoadOptions tune loading.
type LoadOptions struct {
	// Lenient skips a file that fails to load (see Set.Skipped) instead of
	// failing the whole set.
	Lenient bool
	// UserHome expands `~/` in host_executable paths; empty disables them.
	UserHome string
	// MaxSteps overrides DefaultMaxSteps when non-zero.
	MaxSteps uint64
	// MaxMemory overrides DefaultMaxMemory when non-zero.
	MaxMemory uint64
	// MaxTime overrides DefaultMaxTime when non-zero.
	MaxTime time.Duration
	// Context, when set, interrupts loading when it ends (a SIGTERM while
	// a slow rules file evaluates): the error then wraps its error.
	Context context.Context

	// onRule, for tests, runs at every prefix_rule call.
	onRule func()
}

// ReadFunc reads a rules file; os.ReadFile in production. The caller owns
// the file I/O, so this package stays pure.
type ReadFunc func(path string) ([]byte, error)

// Load reads the files in order with read and evaluates them. Unless
// opts.Lenient, any failing file fails the whole set (fail closed) and the
// error names every failing file and line.
func Load(paths []string, read ReadFunc, opts LoadOptions) (*Set, error) {
	srcs := make([]events.RuleSource, 0, len(paths))
	var unreadable []*LoadError
	for _, p := range paths {
		b, err := read(p)
		if err != nil {
			msg := err.Error()
			var pe *fs.PathError
			if errors.As(err, &pe) {
				msg = pe.Err.Error()
			}
			unreadable = append(unreadable, &LoadError{File: p, Msg: "cannot read rules file: " + msg, Err: err})
			continue
		}
		srcs = append(srcs, events.RuleSource{Path: p, Text: string(b)})
	}
	set, err := LoadSources(srcs, opts)
	if opts.Lenient {
		set.skipped = append(unreadable, set.skipped...)
		return set, nil
	}
	if len(unreadable) == 0 {
		return set, err
	}
	errs := make([]error, 0, len(unreadable)+1)
	for _, e := range unreadable {
		errs = append(errs, e)
	}
	return nil, errors.Join(append(errs, err)...)
}

// LoadSources evaluates rules texts as if they were files, e.g. the rules a
// journal recorded when its session started.
func LoadSources(srcs []events.RuleSource, opts LoadOptions) (*Set, error) {
	set := &Set{byProgram: map[string][]*Rule{}, hosts: map[string][]string{}, userHome: opts.UserHome}
	var errs []error
	userHosts := map[string]bool{} // host_executable names a user (non-project) file declared last
	for _, src := range srcs {
		f, err := evalFile(src, set, opts)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				le = &LoadError{File: src.Path, Msg: err.Error(), Err: err}
			}
			if opts.Lenient {
				set.skipped = append(set.skipped, le)
				continue
			}
			errs = append(errs, le)
			continue
		}
		f.commit(set, src.Project, userHosts)
		set.sources = append(set.sources, src)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// fileRules collects what one file declares; it joins the set only if the
// whole file loads.
type fileRules struct {
	path    string
	rules   []*Rule
	hosts   map[string][]string
	network []NetworkRule
	checks  []exampleCheck
	onRule  func() // LoadOptions.onRule
}

func (f *fileRules) commit(set *Set, project bool, userHosts map[string]bool) {
	for _, r := range f.rules {
		set.add(r)
	}
	for name, paths := range f.hosts {
		// Last declaration wins (Codex's rule). One exception keeps a
		// workspace from widening the user's choice: a project file's list
		// replacing a user file's is cut down to the paths both name, so a
		// user's allow rule never comes to cover a binary the user did not
		// list (it would run outside the sandbox).
		if project && userHosts[name] {
			paths = intersect(set.hosts[name], paths)
		} else {
			userHosts[name] = !project
		}
		set.hosts[name] = paths
	}
	set.network = append(set.network, f.network...)
}

// intersect returns the elements of b that a holds too, in b's order.
func intersect(a, b []string) []string {
	out := []string{}
	for _, p := range b {
		if slices.Contains(a, p) {
			out = append(out, p)
		}
	}
	return out
}

func mergeUnique(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, p := range b {
		dup := false
		for _, q := range out {
			dup = dup || p == q
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

func evalFile(src events.RuleSource, set *Set, opts LoadOptions) (*fileRules, error) {
	if i := strings.IndexByte(src.Text, 0); i >= 0 {
		// Starlark's scanner reads a NUL as the end of the file: the rules
		// after it (invisible in most editors) would be dropped silently.
		line := 1 + strings.Count(src.Text[:i], "\n")
		col := 1 + i - (strings.LastIndexByte(src.Text[:i], '\n') + 1)
		return nil, &LoadError{File: src.Path, Line: line, Col: col, Msg: "a NUL byte: a rules file is text, and nothing after it would be read"}
	}
	f := &fileRules{path: src.Path, hosts: map[string][]string{}, onRule: opts.onRule}
	thread := &starlark.Thread{
		Name:  "rules " + src.Path,
		Print: func(*starlark.Thread, string) {},
		Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
			return nil, errors.New("load() is not supported in rules files")
		},
	}
	steps := opts.MaxSteps
	if steps == 0 {
		steps = DefaultMaxSteps
	}
	thread.SetMaxExecutionSteps(steps)
	thread.OnMaxSteps = func(th *starlark.Thread) {
		th.Cancel(fmt.Sprintf("it took more than %d steps", steps))
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, &LoadError{File: src.Path, Msg: "loading the rules was interrupted", Err: err}
	}
	maxMem := opts.MaxMemory
	if maxMem == 0 {
		maxMem = DefaultMaxMemory
	}
	predeclared := starlark.StringDict{
		"prefix_rule":     starlark.NewBuiltin("prefix_rule", f.prefixRule),
		"host_executable": starlark.NewBuiltin("host_executable", f.hostExecutable),
		"network_rule":    starlark.NewBuiltin("network_rule", f.networkRule),
	}
	fileOpts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true}
	maxTime := opts.MaxTime
	if maxTime == 0 {
		maxTime = DefaultMaxTime
	}
	g := startGuard(ctx, thread, maxMem, maxTime)
	_, err := starlark.ExecFileOptions(fileOpts, thread, src.Path, src.Text, predeclared)
	if bound := g.finish(); bound != nil && err != nil {
		le := &LoadError{File: src.Path, Msg: bound.Error(), Err: bound}
		if errors.Is(bound, context.Canceled) || errors.Is(bound, context.DeadlineExceeded) {
			le.Msg = "loading the rules was interrupted"
		}
		if se, ok := starlarkError(src.Path, err).(*LoadError); ok {
			le.Line, le.Col = se.Line, se.Col
		}
		return nil, le
	}
	if err != nil {
		le := starlarkError(src.Path, err)
		if thread.Steps >= steps {
			if l, ok := le.(*LoadError); ok {
				l.Msg = fmt.Sprintf("%v: the file took more than %d Starlark steps to load (a loop that never ends?)", ErrTooManySteps, steps)
				l.Err = fmt.Errorf("%w: %w", ErrTooManySteps, err)
			}
		}
		return nil, le
	}
	if err := f.checkExamples(set); err != nil {
		return nil, err
	}
	return f, nil
}

// starlarkError turns a go.starlark.net error into a LoadError naming the
// file and line.
func starlarkError(file string, err error) error {
	var se syntax.Error
	if errors.As(err, &se) {
		return &LoadError{File: file, Line: int(se.Pos.Line), Col: int(se.Pos.Col), Msg: se.Msg, Err: err}
	}
	var rl resolve.ErrorList
	if errors.As(err, &rl) && len(rl) > 0 {
		return &LoadError{File: file, Line: int(rl[0].Pos.Line), Col: int(rl[0].Pos.Col), Msg: rl[0].Msg, Err: err}
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		le := &LoadError{File: file, Msg: ee.Msg, Err: err}
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			pos := ee.CallStack[i].Pos
			if pos.Filename() == file && pos.Line > 0 {
				le.Line, le.Col = int(pos.Line), int(pos.Col)
				break
			}
		}
		return le
	}
	return &LoadError{File: file, Msg: err.Error(), Err: err}
}

// callerLine is the line of the rules-file call currently running a builtin.
func callerLine(thread *starlark.Thread) int {
	if thread.CallStackDepth() < 2 {
		return 0
	}
	return int(thread.CallFrame(1).Pos.Line)
}

var errNotString = errors.New("must be a string")

func asString(v starlark.Value) (string, error) {
	s, ok := starlark.AsString(v)
	if !ok {
		return "", fmt.Errorf("%w (got %s)", errNotString, v.Type())
	}
	return s, nil
}

// iterate returns the elements of a list or tuple.
func iterate(v starlark.Value) ([]starlark.Value, bool) {
	switch x := v.(type) {
	case *starlark.List:
		out := make([]starlark.Value, x.Len())
		for i := range out {
			out[i] = x.Index(i)
		}
		return out, true
	case starlark.Tuple:
		return x, true
	}
	return nil, false
}

// stringList returns the strings of a list or tuple.
func stringList(v starlark.Value) ([]string, error) {
	elems, ok := iterate(v)
	if !ok {
		return nil, fmt.Errorf("must be a list of strings (got %s)", v.Type())
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		s, err := asString(e)
		if err != nil {
			return nil, fmt.Errorf("element %d %w", i, err)
		}
		out[i] = s
	}
	return out, nil
}
