package config

import (
	"path"
	"slices"
	"strings"
)

// Values of shell_environment_policy.inherit.
const (
	InheritAll  = "all"
	InheritCore = "core"
	InheritNone = "none"
)

func inheritValues() []string { return []string{InheritAll, InheritCore, InheritNone} }

// ShellEnvPolicy is the [shell_environment_policy] table: how the
// environment of shell commands and patches is built from Docket's own.
type ShellEnvPolicy struct {
	// Inherit is the starting point: all of Docket's environment, the core
	// variables (HOME, PATH, ...), or none. Default all.
	Inherit string `toml:"inherit"`
	// IgnoreDefaultExcludes keeps variables whose names contain KEY,
	// SECRET, TOKEN or PASSWORD, which are otherwise removed.
	IgnoreDefaultExcludes bool `toml:"ignore_default_excludes"`
	// Exclude removes variables matching any of these case-insensitive
	// globs (* and ?).
	Exclude []string `toml:"exclude"`
	// Set adds or replaces variables.
	Set map[string]string `toml:"set"`
	// IncludeOnly, when not empty, keeps only the variables matching one
	// of these globs (after Set).
	IncludeOnly []string `toml:"include_only"`
}

// coreEnv are the variables inherit = "core" keeps, as Codex's core set.
func coreEnv() []string {
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL", "TERM", "TZ"}
}

// defaultExcludes are Codex's default excludes plus PASSWORD, the names
// the sandbox strips as secrets (sandbox/env.go).
func defaultExcludes() []string { return []string{"*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*"} }

// Build computes the command environment from parent (KEY=VALUE entries)
// in Codex's order: inherit, default excludes, exclude, set, include_only.
// keepSecrets says whether the policy itself admits variables that look
// like secrets (ignore_default_excludes, or a secret-looking name in set),
// so the sandbox must not strip them again.
func (p ShellEnvPolicy) Build(parent []string) (env []string, keepSecrets bool) {
	vars := map[string]string{}
	var order []string
	put := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		switch p.Inherit {
		case InheritNone:
			continue
		case InheritCore:
			if !slices.Contains(coreEnv(), k) {
				continue
			}
		}
		put(k, v)
	}
	drop := func(patterns []string) {
		for k := range vars {
			if matchAny(patterns, k) {
				delete(vars, k)
			}
		}
	}
	if !p.IgnoreDefaultExcludes {
		drop(defaultExcludes())
	}
	drop(p.Exclude)
	setKeys := make([]string, 0, len(p.Set))
	for k := range p.Set {
		setKeys = append(setKeys, k)
	}
	slices.Sort(setKeys)
	for _, k := range setKeys {
		put(k, p.Set[k])
		if matchAny(defaultExcludes(), k) {
			keepSecrets = true
		}
	}
	if len(p.IncludeOnly) > 0 {
		for k := range vars {
			if !matchAny(p.IncludeOnly, k) {
				delete(vars, k)
			}
		}
	}
	env = []string{}
	for _, k := range order {
		if v, ok := vars[k]; ok {
			env = append(env, k+"="+v)
		}
	}
	return env, keepSecrets || p.IgnoreDefaultExcludes
}

// matchAny reports whether name matches one of the case-insensitive globs.
func matchAny(patterns []string, name string) bool {
	for _, pat := range patterns {
		if ok, _ := path.Match(strings.ToUpper(pat), strings.ToUpper(name)); ok {
			return true
		}
	}
	return false
}

// badPattern returns the first pattern that is not a valid glob, or "".
func badPattern(patterns []string) string {
	for _, pat := range patterns {
		if _, err := path.Match(pat, ""); err != nil {
			return pat
		}
	}
	return ""
}
