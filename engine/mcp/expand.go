package mcp

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Expand replaces each ${NAME} in s with lookup(NAME). "$${" stands for a
// literal "${"; any other "$" is kept as it is. An unterminated "${", a name
// outside [A-Za-z_][A-Za-z0-9_]*, or an unset variable is an error.
func Expand(s string, lookup func(name string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		if i > 0 && s[i-1] == '$' {
			// "$${": the first "$" escapes; write one "${" literally.
			b.WriteString(s[:i-1])
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s[i:])
		}
		name := s[i+2 : i+2+end]
		if !validVarName(name) {
			return "", fmt.Errorf("${%s}: not a variable name", name)
		}
		v, ok := lookup(name)
		if !ok {
			return "", fmt.Errorf("${%s}: %s is not set in the environment", name, name)
		}
		b.WriteString(v)
		s = s[i+2+end+1:]
	}
}

func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// inheritedEnv lists the parent variables every server gets, as Codex does;
// anything else (API keys, tokens) reaches a server only through its env table.
func inheritedEnv() []string {
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}
}

// launch is a server's command line after expansion.
type launch struct {
	command string
	args    []string
	env     []string
	dir     string
}

// resolve expands the config of server name against the parent environment;
// cwd is taken relative to baseDir, and defaults to it.
func (c ServerConfig) resolve(name string, parent []string, baseDir string) (launch, error) {
	lookup := envLookup(parent)
	key := func(k string) string { return fmt.Sprintf("mcp_servers.%s.%s", name, k) }
	command, err := Expand(c.Command, lookup)
	if err != nil {
		return launch{}, fmt.Errorf("%s: %w", key("command"), err)
	}
	l := launch{command: command}
	for i, a := range c.Args {
		v, err := Expand(a, lookup)
		if err != nil {
			return launch{}, fmt.Errorf("%s[%d]: %w", key("args"), i, err)
		}
		l.args = append(l.args, v)
	}
	keys := make([]string, 0, len(c.Env))
	for k := range c.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range inheritedEnv() {
		if _, set := c.Env[k]; set {
			continue
		}
		if v, ok := lookup(k); ok {
			l.env = append(l.env, k+"="+v)
		}
	}
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return launch{}, fmt.Errorf("%s: %q is not a valid variable name", key("env"), k)
		}
		v, err := Expand(c.Env[k], lookup)
		if err != nil {
			return launch{}, fmt.Errorf("%s.%s: %w", key("env"), k, err)
		}
		l.env = append(l.env, k+"="+v)
	}
	dir, err := Expand(c.Cwd, lookup)
	if err != nil {
		return launch{}, fmt.Errorf("%s: %w", key("cwd"), err)
	}
	switch {
	case dir == "":
		dir = baseDir
	case !filepath.IsAbs(dir) && baseDir != "":
		dir = filepath.Join(baseDir, dir)
	}
	l.dir = dir
	return l, nil
}

func envLookup(env []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		// The last assignment wins, as in a shell.
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
}
