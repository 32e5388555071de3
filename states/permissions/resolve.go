package permissions

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
)

// Env is what the special names of a profile stand for in one session,
// resolved by the caller (engine) and journaled with the plan.
type Env struct {
	// ProjectRoots are the absolute, cleaned workspace roots (cwd first).
	ProjectRoots []string
	// Tmpdirs are what :tmpdir stands for ($TMPDIR and /tmp, as the caller
	// found them).
	Tmpdirs []string
	// Home expands a leading "~" in a path key; "" makes such a key an error.
	Home string
}

// DefaultGlobScanMaxDepth bounds how deep a deny glob is expanded when
// glob_scan_max_depth is not set; MaxGlobScanMaxDepth is the most a
// profile may ask for.
const (
	DefaultGlobScanMaxDepth = 16
	MaxGlobScanMaxDepth     = 64
)

// Rule is one filesystem rule after resolution: an absolute path or glob.
type Rule struct {
	// Pattern is an absolute, cleaned path, possibly with glob characters.
	Pattern string
	Access  Access
	// Glob says Pattern has glob characters.
	Glob bool
	// Key is the config key the rule came from, for messages and explain.
	Key string
}

// Resolved is a profile resolved for one session: what the sandbox plan
// and the egress proxy are built from.
type Resolved struct {
	// Name is the profile's name (a built-in's includes its colon).
	Name string
	// FullAccess is :danger-full-access: no sandbox at all.
	FullAccess bool
	// Rules are the filesystem rules, sorted by pattern then access.
	Rules []Rule
	// GlobScanMaxDepth bounds the expansion of glob rules.
	GlobScanMaxDepth int
	// WorkspaceRoots are the project roots the profile's rules applied to.
	WorkspaceRoots []string
	// Network is the profile's network policy.
	Network Network
	// Warnings name the keys Docket accepts but ignores.
	Warnings []string
}

// Resolve returns the named profile (a built-in or one of profiles)
// resolved against env. Every error is an *Error naming the key.
func Resolve(name string, profiles map[string]Profile, env Env) (*Resolved, error) {
	for n := range profiles {
		if strings.HasPrefix(n, ":") {
			return nil, &Error{Key: keyPath("permissions", n), Msg: "profile names beginning with ':' are reserved for the built-ins (" + strings.Join(Builtins(), ", ") + ")"}
		}
	}
	var p Profile
	switch name {
	case BuiltinReadOnly:
		p = Profile{Filesystem: map[string]any{keyRoot: string(Read)}}
	case BuiltinWorkspace:
		p = Profile{Filesystem: map[string]any{keyRoot: string(Read), keyProjectRoots: map[string]any{".": string(Write)}, keyTmpdir: string(Write)}}
	case BuiltinFullAccess:
		on := true
		return &Resolved{Name: name, FullAccess: true, GlobScanMaxDepth: DefaultGlobScanMaxDepth,
			Rules:          []Rule{{Pattern: "/", Access: Write, Key: keyPath("permissions", name)}},
			WorkspaceRoots: slices.Clone(env.ProjectRoots),
			Network:        Network{Enabled: on, Mode: ModeFull, AllowAll: true, Socks5: true, AllowLocalBinding: true, UnixSockets: nil}}, nil
	default:
		var ok bool
		if p, ok = profiles[name]; !ok {
			return nil, &Error{Key: "default_permissions", Msg: unknownProfileMsg(name, profiles)}
		}
	}
	r := &Resolved{Name: name, GlobScanMaxDepth: DefaultGlobScanMaxDepth}
	roots, err := workspaceRoots(name, p.WorkspaceRoots, env)
	if err != nil {
		return nil, err
	}
	r.WorkspaceRoots = roots
	if err := r.addFilesystem(name, p.Filesystem, env); err != nil {
		return nil, err
	}
	net, warnings, err := parseNetwork(name, p.Network)
	if err != nil {
		return nil, err
	}
	r.Network = net
	r.Warnings = warnings
	sort.Slice(r.Rules, func(i, j int) bool {
		if r.Rules[i].Pattern != r.Rules[j].Pattern {
			return r.Rules[i].Pattern < r.Rules[j].Pattern
		}
		return r.Rules[i].Access.strictness() < r.Rules[j].Access.strictness()
	})
	return r, nil
}

func unknownProfileMsg(name string, profiles map[string]Profile) string {
	names := Builtins()
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names[len(Builtins()):])
	return fmt.Sprintf("permission profile %q is not defined (no [permissions.%s] table); defined: %s", name, keyPath(name), strings.Join(names, ", "))
}

// workspaceRoots adds the profile's [workspace_roots] to the session's.
func workspaceRoots(name string, extra map[string]bool, env Env) ([]string, error) {
	roots := slices.Clone(env.ProjectRoots)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key := keyPath("permissions", name, "workspace_roots", k)
		if !extra[k] {
			continue
		}
		p, msg := absPath(k, env.Home)
		if msg == "" && hasGlob(p) {
			msg = "a workspace root cannot be a glob"
		}
		if msg != "" {
			return nil, &Error{Key: key, Msg: msg}
		}
		if !slices.Contains(roots, p) {
			roots = append(roots, p)
		}
	}
	return roots, nil
}

// absPath cleans an absolute or home-relative path key; it returns a
// message instead when the key is neither, or walks up with "..".
func absPath(k, home string) (string, string) {
	if strings.ContainsRune(k, 0) {
		return "", "a path cannot contain a NUL byte"
	}
	switch {
	case k == "~" || strings.HasPrefix(k, "~/"):
		if home == "" {
			return "", "a path beginning with ~ needs $HOME"
		}
		k = home + k[1:]
	case !strings.HasPrefix(k, "/"):
		return "", "a path must be absolute, begin with ~/, or be one of :root, :project_roots, :tmpdir"
	}
	if slices.Contains(strings.Split(k, "/"), "..") {
		return "", `a path cannot contain ".."`
	}
	return path.Clean(k), ""
}

func parseAccess(v any) (Access, string) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Sprintf("want \"read\", \"write\" or \"none\", got %T", v)
	}
	switch s {
	case "read", "write", "none":
		return Access(s), ""
	case "deny":
		// Later Codex releases spell none "deny"; both are accepted.
		return None, ""
	}
	return "", fmt.Sprintf("want \"read\", \"write\" or \"none\", got %q", s)
}

// addFilesystem turns the [filesystem] table into rules.
func (r *Resolved) addFilesystem(name string, fs map[string]any, env Env) error {
	keys := make([]string, 0, len(fs))
	for k := range fs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key := keyPath("permissions", name, "filesystem", k)
		v := fs[k]
		switch k {
		case keyGlobScanDepth:
			d, ok := asInt(v)
			if !ok || d < 1 || d > MaxGlobScanMaxDepth {
				return &Error{Key: key, Msg: fmt.Sprintf("want a whole number from 1 to %d, got %v", MaxGlobScanMaxDepth, v)}
			}
			r.GlobScanMaxDepth = d
		case keyRoot:
			if err := r.add(key, "/", v); err != nil {
				return err
			}
		case keyTmpdir:
			for _, t := range env.Tmpdirs {
				if err := r.add(key, t, v); err != nil {
					return err
				}
			}
		case keyProjectRoots:
			if err := r.addProjectRoots(name, key, v); err != nil {
				return err
			}
		default:
			if strings.HasPrefix(k, ":") {
				return &Error{Key: key, Msg: "unknown special path (known: :root, :project_roots, :tmpdir)"}
			}
			p, msg := absPath(k, env.Home)
			if msg != "" {
				return &Error{Key: key, Msg: msg}
			}
			if err := r.add(key, p, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// addProjectRoots applies ":project_roots" (an access, or a table of
// sub-paths and globs relative to each root) to every workspace root.
func (r *Resolved) addProjectRoots(name, key string, v any) error {
	sub, ok := v.(map[string]any)
	if !ok {
		sub = map[string]any{".": v}
	}
	rel := make([]string, 0, len(sub))
	for k := range sub {
		rel = append(rel, k)
	}
	sort.Strings(rel)
	for _, k := range rel {
		skey := keyPath("permissions", name, "filesystem", keyProjectRoots, k)
		if strings.HasPrefix(k, "/") || strings.HasPrefix(k, "~") || k == "" || strings.ContainsRune(k, 0) ||
			slices.Contains(strings.Split(k, "/"), "..") {
			return &Error{Key: skey, Msg: `a path under :project_roots must be relative to the root ("." is the root itself) and cannot contain ".."`}
		}
		for _, root := range r.WorkspaceRoots {
			if err := r.add(skey, path.Join(root, k), sub[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// add appends one rule after checking its access and glob.
func (r *Resolved) add(key, pattern string, v any) error {
	a, msg := parseAccess(v)
	if msg == "" && hasGlob(pattern) {
		msg = checkGlob(pattern)
	}
	if msg != "" {
		return &Error{Key: key, Msg: msg}
	}
	r.Rules = append(r.Rules, Rule{Pattern: pattern, Access: a, Glob: hasGlob(pattern), Key: key})
	return nil
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return int(n), true
		}
	case int:
		return n, true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<31 {
			return int(n), true
		}
	}
	return 0, false
}
