package rules

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"go.starlark.net/starlark"
)

// exampleCheck is a prefix_rule call's match/not_match examples, checked once
// the whole file has run (host_executable may come later in the file).
type exampleCheck struct {
	line     int
	rules    []*Rule
	match    [][]string
	notMatch [][]string
}

func (f *fileRules) prefixRule(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if f.onRule != nil {
		f.onRule()
	}
	var pattern, decision, justification, match, notMatch, reviewer starlark.Value = nil, starlark.None, starlark.None, starlark.None, starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"pattern", &pattern, "decision?", &decision, "justification?", &justification,
		"match?", &match, "not_match?", &notMatch, "reviewer?", &reviewer); err != nil {
		return nil, err
	}
	line := callerLine(thread)
	r := &Rule{File: f.path, Line: line, Decision: Allow}

	positions, ok := iterate(pattern)
	if !ok {
		return nil, fmt.Errorf("prefix_rule: pattern must be a list (got %s)", pattern.Type())
	}
	if len(positions) == 0 {
		return nil, errors.New("prefix_rule: pattern cannot be empty")
	}
	for i, p := range positions {
		if s, ok := starlark.AsString(p); ok {
			r.Pattern = append(r.Pattern, []string{s})
			continue
		}
		alts, err := stringList(p)
		if err != nil {
			return nil, fmt.Errorf("prefix_rule: pattern element %d must be a string or a list of strings (got %s)", i, p.Type())
		}
		if len(alts) == 0 {
			return nil, fmt.Errorf("prefix_rule: pattern element %d: alternatives cannot be empty", i)
		}
		r.Pattern = append(r.Pattern, alts)
	}

	if decision != starlark.None {
		s, err := asString(decision)
		if err != nil {
			return nil, fmt.Errorf("prefix_rule: decision %w", err)
		}
		if r.Decision, err = ParseDecision(s); err != nil {
			return nil, fmt.Errorf("prefix_rule: %w", err)
		}
	}
	if justification != starlark.None {
		s, err := asString(justification)
		if err != nil {
			return nil, fmt.Errorf("prefix_rule: justification %w", err)
		}
		if strings.TrimSpace(s) == "" {
			return nil, errors.New("prefix_rule: justification cannot be empty")
		}
		r.Justification = s
	}
	if reviewer != starlark.None {
		s, err := asString(reviewer)
		if err != nil || (s != "user" && s != "auto_review") {
			return nil, fmt.Errorf("prefix_rule: reviewer must be \"user\" or \"auto_review\" (got %s)", reviewer)
		}
	}
	check := exampleCheck{line: line, rules: []*Rule{r}}
	var err error
	if check.match, err = examples("match", match); err != nil {
		return nil, err
	}
	if check.notMatch, err = examples("not_match", notMatch); err != nil {
		return nil, err
	}
	f.rules = append(f.rules, r)
	f.checks = append(f.checks, check)
	return starlark.None, nil
}

// examples parses match/not_match: a list whose elements are token lists or
// shell-quoted strings.
func examples(name string, v starlark.Value) ([][]string, error) {
	if v == starlark.None {
		return nil, nil
	}
	elems, ok := iterate(v)
	if !ok {
		return nil, fmt.Errorf("prefix_rule: %s must be a list of examples (got %s)", name, v.Type())
	}
	out := make([][]string, 0, len(elems))
	for i, e := range elems {
		var toks []string
		if s, ok := starlark.AsString(e); ok {
			var err error
			if toks, err = shellSplit(s); err != nil {
				return nil, fmt.Errorf("prefix_rule: %s example %d %q: %w", name, i, s, err)
			}
		} else {
			var err error
			if toks, err = stringList(e); err != nil {
				return nil, fmt.Errorf("prefix_rule: %s example %d must be a string or a list of strings (got %s)", name, i, e.Type())
			}
		}
		if len(toks) == 0 {
			return nil, fmt.Errorf("prefix_rule: %s example %d is empty", name, i)
		}
		out = append(out, toks)
	}
	return out, nil
}

// checkExamples verifies every prefix_rule's examples against the rules of
// that call, with host_executable resolution as loaded so far.
func (f *fileRules) checkExamples(set *Set) error {
	hosts := map[string][]string{}
	for k, v := range set.hosts {
		hosts[k] = v
	}
	for k, v := range f.hosts {
		hosts[k] = v // the file's own declaration replaces earlier ones, as on commit
	}
	for _, c := range f.checks {
		mini := &Set{byProgram: map[string][]*Rule{}, hosts: hosts, userHome: set.userHome}
		for _, r := range c.rules {
			mini.add(r)
		}
		for _, ex := range c.notMatch {
			if ms := mini.matchCommand(ex); len(ms) > 0 {
				return &LoadError{File: f.path, Line: c.line,
					Msg: fmt.Sprintf("prefix_rule: not_match example %q matches pattern %s", ex, c.rules[0])}
			}
		}
		for _, ex := range c.match {
			if ms := mini.matchCommand(ex); len(ms) == 0 {
				return &LoadError{File: f.path, Line: c.line,
					Msg: fmt.Sprintf("prefix_rule: match example %q does not match pattern %s", ex, c.rules[0])}
			}
		}
	}
	return nil
}

func (f *fileRules) hostExecutable(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var paths starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "paths", &paths); err != nil {
		return nil, err
	}
	if name == "" || strings.Contains(name, "/") || name == "." || name == ".." {
		return nil, fmt.Errorf("host_executable: name must be a bare executable name (got %q)", name)
	}
	list, err := stringList(paths)
	if err != nil {
		return nil, fmt.Errorf("host_executable: paths %w", err)
	}
	for _, p := range list {
		if !path.IsAbs(p) && !strings.HasPrefix(p, "~/") {
			return nil, fmt.Errorf("host_executable: path %q must be absolute or start with ~/", p)
		}
		if path.Base(p) != name {
			return nil, fmt.Errorf("host_executable: path %q must have basename %q", p, name)
		}
	}
	// The last declaration for a name wins, as in Codex (within a file and
	// across files, in load order); duplicates in one list are folded.
	f.hosts[name] = mergeUnique(nil, list)
	return starlark.None, nil
}

func (f *fileRules) networkRule(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var host, protocol, decision string
	var justification starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host", &host, "protocol", &protocol, "decision", &decision, "justification?", &justification); err != nil {
		return nil, err
	}
	nr := NetworkRule{File: f.path, Line: callerLine(thread), Host: strings.ToLower(strings.TrimSpace(host))}
	if nr.Host == "" || strings.ContainsAny(nr.Host, "/?#* \t") {
		return nil, fmt.Errorf("network_rule: host must be a hostname or IP literal (got %q)", host)
	}
	switch protocol {
	case "http", "https", "https_connect", "http-connect", "socks5_tcp", "socks5_udp":
		nr.Protocol = protocol
	default:
		return nil, fmt.Errorf("network_rule: protocol must be one of http, https, socks5_tcp, socks5_udp (got %q)", protocol)
	}
	if decision == "deny" {
		decision = string(Forbidden)
	}
	d, err := ParseDecision(decision)
	if err != nil {
		return nil, fmt.Errorf("network_rule: %w", err)
	}
	nr.Decision = d
	if justification != starlark.None {
		s, err := asString(justification)
		if err != nil || strings.TrimSpace(s) == "" {
			return nil, errors.New("network_rule: justification must be a non-empty string")
		}
		nr.Justification = s
	}
	f.network = append(f.network, nr)
	return starlark.None, nil
}
