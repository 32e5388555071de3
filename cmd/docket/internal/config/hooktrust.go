package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/replay/audit"
	"github.com/docket-engine/docket/states/cmdsafety"
)

// A trusted project's hooks run as the user, so trusting the project once
// must not let a later commit add or change one silently: a hook from a
// project layer runs only once the user trusted that exact definition
// (docket hooks trust). The user's own hooks (config file, profile, -c)
// are the user's and run as before.

// HookStatus is whether a configured hook may run.
type HookStatus string

const (
	// HookUser is a hook of the user's own config, profile or -c: it runs.
	HookUser HookStatus = "user"
	// HookTrusted is a project hook the user trusted as it is now: it runs.
	HookTrusted HookStatus = "trusted"
	// HookNew is a project hook never trusted: it does not run.
	HookNew HookStatus = "new"
	// HookChanged is a project hook trusted once whose definition or
	// program has changed since: it does not run.
	HookChanged HookStatus = "changed"
)

// Runs reports whether a hook of this status runs.
func (s HookStatus) Runs() bool { return s == HookUser || s == HookTrusted }

// HookReview is one configured hook, where it came from and whether it
// may run.
type HookReview struct {
	// Stage is "pre_tool" or "post_tool".
	Stage string
	// Name identifies the hook within its file and stage: its name, else
	// its command's first word; " #2" and on tell apart hooks that would
	// share one.
	Name string
	// File is the project config file the hook came from; "" for the
	// user's own hooks.
	File string
	// Hook is the definition.
	Hook Hook
	// Hash covers the definition and the content of each program file it
	// names inside the project (hookHash); "" for the user's hooks.
	Hash string
	// Programs are the files inside the project the hash covers; Pins
	// are every path the hash covers, as they are now (hooks.Pin).
	Programs []string
	Pins     []hooks.Pin
	Status   HookStatus
}

// String names the hook for people: stage, name and file, on one line.
// The name and the file are the project's text: a newline or an escape in
// them is written as its escape (safetext.Line), so that in the start
// warning, or the session record the audit splits into one hook a line,
// the name cannot forge a line or an entry of its own.
func (r HookReview) String() string {
	s := r.Stage + " " + safetext.Line(r.Name)
	if r.File != "" {
		s += " (from " + safetext.Line(r.File) + ")"
	}
	return s
}

// hookOrigins returns, for each hook of stage in the merged list, the
// file it came from when it needs the user's review (a project's hook, a
// Codex hook from any file), else "". The merge appends a
// layer's list to the lower ones' (addsUp), so the merged list is the
// layers' lists in order; a total that differs from decoded (a lower
// layer spelling [Hooks] in another case, which the decoder treats
// differently) is an error rather than a guess.
func hookOrigins(layers []layer, stage string, decoded int) ([]string, error) {
	var out []string
	project := false
	for _, l := range layers {
		ht, _ := l.tree["hooks"].(tree)
		list, _ := ht[stage].([]any)
		src := l.source([]string{"hooks", stage})
		// A Codex hook, from any file, runs only once reviewed, as Codex
		// runs it only once its [hooks.state] trusts it.
		codex := map[string]bool{}
		for _, ch := range l.codexHooks {
			for _, n := range ch.DocketHooks {
				codex[n] = true
			}
		}
		for _, e := range list {
			et, _ := e.(tree)
			name, _ := et["name"].(string)
			if src.Layer == LayerProject || codex[name] && src.File != "" {
				out = append(out, src.File)
				project = true
			} else {
				out = append(out, "")
			}
		}
	}
	if project && len(out) != decoded {
		return nil, &Error{Source: "merged configuration", Key: "hooks." + stage,
			Msg: fmt.Sprintf("%d hooks were configured but %d decoded: write the tables as [[hooks.%s]], in lower case, in every config file", len(out), decoded, stage)}
	}
	return out, nil
}

// foldProjectHookKeys rewrites a project layer's hook tables spelled in
// another case ([[Hooks.Pre_Tool]], which the decoder folds into
// [[hooks.pre_tool]]) under their lower-case keys, so that hookOrigins
// finds every hook the project sets: one it missed would run unreviewed.
func foldProjectHookKeys(t tree) {
	var hookKeys []string
	for k := range t {
		if strings.EqualFold(k, "hooks") {
			hookKeys = append(hookKeys, k)
		}
	}
	if len(hookKeys) == 0 {
		return
	}
	sort.Strings(hookKeys)
	merged := tree{}
	for _, k := range hookKeys {
		ht, ok := t[k].(tree)
		delete(t, k)
		if !ok {
			continue
		}
		keys := make([]string, 0, len(ht))
		for s := range ht {
			keys = append(keys, s)
		}
		sort.Strings(keys)
		for _, s := range keys {
			name := s
			if low := strings.ToLower(s); low == "pre_tool" || low == "post_tool" {
				name = low
			}
			prev, _ := merged[name].([]any)
			if list, ok := ht[s].([]any); ok && (prev != nil || name != s) {
				merged[name] = append(prev, list...)
				continue
			}
			merged[name] = ht[s]
		}
	}
	t["hooks"] = merged
}

// reviewHooks sorts cfg's hooks into those that run and those that wait
// for the user's review, reading the trust file only when a project layer
// set hooks. origins are hookOrigins' per stage; pathEnv is the PATH the
// hooks run with.
func reviewHooks(cfg *Config, pre, post []string, pathEnv string) error {
	var reviews []HookReview
	project := false
	// The bounds (a walk up for the git root) are found at the first
	// project hook: a start without one needs none of it.
	var dir string
	var bounds []string
	for _, st := range []struct {
		name    string
		list    []Hook
		origins []string
	}{{"pre_tool", cfg.Hooks.PreTool, pre}, {"post_tool", cfg.Hooks.PostTool, post}} {
		seen := map[string]int{}
		for i, h := range st.list {
			r := HookReview{Stage: st.name, Hook: h, Status: HookUser}
			if i < len(st.origins) && st.origins[i] != "" {
				if !project {
					dir, bounds = hookBound(cfg)
				}
				project = true
				r.File = st.origins[i]
				r.Name = hookLabel(h)
				seen[r.File+"\x00"+r.Name]++
				if n := seen[r.File+"\x00"+r.Name]; n > 1 {
					r.Name = fmt.Sprintf("%s #%d", r.Name, n)
				}
				r.Hash, r.Pins = hookHash(st.name, h, r.File, dir, bounds, pathEnv)
				r.Programs = programs(r.Pins)
			} else {
				r.Name = hookLabel(h)
			}
			reviews = append(reviews, r)
		}
	}
	cfg.HookReviews = reviews
	if !project {
		return nil
	}
	list, err := ReadHookTrust(filepath.Join(cfg.Home, HookTrustFile))
	if err != nil {
		return err
	}
	var keep HooksConfig
	var waiting []string
	for i := range cfg.HookReviews {
		r := &cfg.HookReviews[i]
		if r.File != "" {
			switch known, same := trusted(list, *r); {
			case same:
				r.Status = HookTrusted
			case known:
				r.Status = HookChanged
			default:
				r.Status = HookNew
			}
		}
		if !r.Status.Runs() {
			waiting = append(waiting, r.String())
			continue
		}
		h := r.Hook
		// A trusted project hook runs only while its files are as trusted.
		h.pins = r.Pins
		if r.Stage == "pre_tool" {
			keep.PreTool = append(keep.PreTool, h)
		} else {
			keep.PostTool = append(keep.PostTool, h)
		}
	}
	cfg.Hooks = keep
	if len(waiting) > 0 {
		kind := "project hook"
		for _, r := range cfg.HookReviews {
			if !r.Status.Runs() && (cfg.ProjectDir == "" || !events.WithinAny(r.File, []string{cfg.ProjectDir})) {
				// A Codex hook of the user's own Codex config.
				kind = "hook"
			}
		}
		what := fmt.Sprintf("%d %ss need review and do not run", len(waiting), kind)
		if len(waiting) == 1 {
			what = "1 " + kind + " needs review and does not run"
		}
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %s; see what runs with `docket hooks`, trust with `docket hooks trust NAME` (or `--all`)",
			what, strings.Join(waiting, "; ")))
	}
	return nil
}

// hookLabel is a hook's name, else its command's first word.
func hookLabel(h Hook) string {
	if h.Name != "" {
		return h.Name
	}
	if len(h.Command) > 0 {
		return h.Command[0]
	}
	return "hook"
}

// UntrustedHooks are the project hooks that did not load for want of the
// user's review.
func (c *Config) UntrustedHooks() []HookReview {
	var out []HookReview
	for _, r := range c.HookReviews {
		if !r.Status.Runs() {
			out = append(out, r)
		}
	}
	return out
}

// HooksUntrustedSetting is the session record's setting naming the
// project hooks that did not run because the user has not trusted them,
// one per line ("pre_tool NAME (from FILE): new|changed"): the audit can
// tell "did not run: untrusted" from "no hook".
const HooksUntrustedSetting = audit.HooksUntrustedSetting

// HooksUntrustedRecord is that setting; false when every hook loaded.
func HooksUntrustedRecord(reviews []HookReview) (events.Setting, bool) {
	var lines []string
	for _, r := range reviews {
		if !r.Status.Runs() {
			lines = append(lines, r.String()+": "+string(r.Status))
		}
	}
	if len(lines) == 0 {
		return events.Setting{}, false
	}
	return events.Setting{Key: HooksUntrustedSetting, Value: strings.Join(lines, "\n")}, true
}

// hookHashInput is what a project hook's hash covers: every field of its
// definition, and for each argument that names a path inside the project,
// what is there now. A hook is its definition and the script it runs:
// hashing the definition alone would let a commit that edits the script
// run new code under an old review.
type hookHashInput struct {
	Version    int           `json:"v"`
	Stage      string        `json:"stage"`
	Name       string        `json:"name"`
	Tool       string        `json:"tool"`
	ArgvPrefix []string      `json:"argv_prefix"`
	Command    []string      `json:"command"`
	TimeoutSec float64       `json:"timeout_sec"`
	OnError    string        `json:"on_error"`
	Sandbox    *bool         `json:"sandbox"`
	Files      []hookHashArg `json:"files"`
	// Protocol is left out when unset, so that the hashes of hooks
	// trusted before it existed still hold.
	Protocol string `json:"protocol,omitempty"`
}

// hookHashArg is an argument naming a path inside the project, and what
// is there (hooks.Pin).
type hookHashArg struct {
	Arg int `json:"arg"`
	// Via is "PATH" for a place PATH looks for a bare program name, at
	// Path; "" for the argument itself.
	Via    string `json:"via,omitempty"`
	Path   string `json:"path,omitempty"`
	Target string `json:"target,omitempty"`
	State  string `json:"state"`
	SHA256 string `json:"sha256,omitempty"`
}

// hookHash hashes a project hook (hookHashInput) and returns the pins of
// the paths its command names within bounds (hookBound). Arguments are
// resolved as the hook runs them: relative to dir, the session's
// directory. The words of a shell wrapper's script (sh -c "cd .docket &&
// sh gate.sh") count as arguments, and the directory of the config file
// that defines the hook (file's .docket or .codex) is pinned whole as
// argument -1: a script there may be named after a cd, through a
// variable, or sourced by the script the hook names, none of which an
// argument shows.
//
// A bare program name (argv[0], a wrapper command's first word) is run as
// PATH finds it: each place PATH would look, up to the one it finds,
// within bounds, is pinned (Arg as the word's, Via "PATH"), so that
// neither an edit of the program nor a new one in an earlier entry runs
// unreviewed.
func hookHash(stage string, h Hook, file, dir string, bounds []string, pathEnv string) (string, []hooks.Pin) {
	in := hookHashInput{Version: 1, Stage: stage, Name: h.Name, Tool: h.Tool, ArgvPrefix: h.ArgvPrefix, Command: h.Command,
		TimeoutSec: h.TimeoutSec, OnError: h.OnError, Sandbox: h.Sandbox, Protocol: h.Protocol}
	var pins []hooks.Pin
	args := h.Command
	programs := map[int]bool{0: true}
	// A Codex hook is one sh -c string ("sh .codex/gate.sh"), and a
	// Docket hook may be one too: the words of its plain commands are
	// pinned, numbered after the argv's, so editing the script it names
	// needs a new review. An argv that is no wrapper is left as it is.
	if cmds, ok := cmdsafety.Commands(h.Command); ok && (len(cmds) != 1 || !slices.Equal(cmds[0], h.Command)) {
		args = slices.Clone(args)
		for _, c := range cmds {
			programs[len(args)] = true
			args = append(args, c...)
		}
	}
	if file != "" && dir != "" {
		if cd := filepath.Dir(file); events.WithinAny(cd, bounds) {
			pin := hooks.PinTree(cd)
			pins = append(pins, pin)
			in.Files = append(in.Files, hookHashArg{Arg: -1, Target: pin.Target, State: "tree", SHA256: pin.SHA256})
		}
	}
	for i, arg := range args {
		if arg == "" || dir == "" {
			continue
		}
		p := arg
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		p = filepath.Clean(p)
		if !events.WithinAny(p, bounds) {
			continue
		}
		pin := hooks.PinPath(p)
		pins = append(pins, pin)
		in.Files = append(in.Files, hookHashArg{Arg: i, Target: pin.Target, State: pin.State, SHA256: pin.SHA256})
	}
	for i, arg := range args {
		if !programs[i] || arg == "" || strings.Contains(arg, "/") || dir == "" {
			continue
		}
		for _, p := range pathCandidates(arg, pathEnv, dir) {
			pin := hooks.PinPath(p)
			if events.WithinAny(p, bounds) {
				pins = append(pins, pin)
				in.Files = append(in.Files, hookHashArg{Arg: i, Via: "PATH", Path: p, Target: pin.Target, State: pin.State, SHA256: pin.SHA256})
			}
			if pin.State == "file" && executable(pin.Target) {
				break
			}
		}
	}
	// Marshal cannot fail on these types.
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), pins
}

// hookBound is the directories a project hook's program files are pinned
// within: the project's git root, else its directory, canonical, and the
// directory as given (an absolute argument may be spelled either way);
// and every place the model's sandboxed commands may write (/tmp, $TMPDIR,
// the configured writable roots, whatever the sandbox mode now, since
// /permissions can switch it), where a program the user reviewed could be
// rewritten before it runs. Programs elsewhere (/usr/bin/python3) are left
// out: a system update would otherwise ask for a review.
func hookBound(cfg *Config) (cdir string, bounds []string) {
	dir := cfg.ProjectDir
	if dir == "" {
		return "", nil
	}
	cdir = canonical(dir)
	root := cdir
	if g := gitRoot(cdir); g != "" {
		root = g
	}
	bounds = []string{root, filepath.Clean(dir)}
	writable := append([]string{"/tmp", cfg.Tmpdir}, cfg.SandboxWorkspaceWrite.WritableRoots...)
	for _, w := range writable {
		if w == "" {
			continue
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(cdir, w)
		}
		bounds = append(bounds, filepath.Clean(w), canonical(w))
	}
	return cdir, bounds
}

// HookProgramFiles are the files the trusted project hooks' pins cover,
// as named and as resolved: the session keeps them read-only to its
// sandboxed commands, since the check before each run cannot close the
// window between that check and the run against a command running
// alongside. The config directories, pinned whole, are read-only already.
func (c *Config) HookProgramFiles() []string {
	var out []string
	for _, r := range c.HookReviews {
		if r.Status != HookTrusted {
			continue
		}
		for _, p := range r.Pins {
			if p.State == "file" && !p.Tree {
				out = append(out, p.Path, p.Target)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// programs are the pinned paths that are files, for people.
func programs(pins []hooks.Pin) []string {
	var out []string
	for _, p := range pins {
		if p.State == "file" {
			out = append(out, p.Path)
		}
	}
	return out
}

// pathCandidates are the places, in order, where PATH would look for a
// bare program name: relative entries (and an empty one, the current
// directory) against dir, the session's directory, as the hook runs.
func pathCandidates(name, pathEnv, dir string) []string {
	var out []string
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		out = append(out, filepath.Clean(filepath.Join(d, name)))
	}
	return out
}

// executable reports whether path is a file with an execute bit, as PATH
// lookup wants.
func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
