package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strings"

	"github.com/docket-engine/docket/events"
)

// Rule is one prefix rule as loaded. Each position of Pattern is a set of
// alternatives (one element for a plain token).
type Rule struct {
	File          string
	Line          int
	Pattern       [][]string
	Decision      Decision
	Justification string
}

// String renders the pattern the way Codex does: alternatives as [a|b].
func (r *Rule) String() string {
	parts := make([]string, len(r.Pattern))
	for i, alts := range r.Pattern {
		if len(alts) == 1 {
			parts[i] = alts[0]
		} else {
			parts[i] = "[" + strings.Join(alts, "|") + "]"
		}
	}
	return strings.Join(parts, " ")
}

// matchesRest reports whether cmd is long enough and positions 1.. of the
// pattern accept it; position 0 is checked by the index lookup.
func (r *Rule) matchesRest(cmd []string) bool {
	if len(cmd) < len(r.Pattern) {
		return false
	}
	for i := 1; i < len(r.Pattern); i++ {
		if !slices.Contains(r.Pattern[i], cmd[i]) {
			return false
		}
	}
	return true
}

// NetworkRule is a validated network_rule; kept for audit, not enforced.
type NetworkRule struct {
	File          string
	Line          int
	Host          string
	Protocol      string
	Decision      Decision
	Justification string
}

// Set is an immutable, loaded rule set. The zero value and nil are empty sets.
type Set struct {
	byProgram map[string][]*Rule
	hosts     map[string][]string
	network   []NetworkRule
	sources   []events.RuleSource
	skipped   []*LoadError
	rules     []*Rule
	userHome  string
}

// Len returns the number of prefix_rule calls loaded.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Rules returns the loaded rules in load order.
func (s *Set) Rules() []Rule {
	if s == nil {
		return nil
	}
	out := make([]Rule, len(s.rules))
	for i, r := range s.rules {
		out[i] = *r
	}
	return out
}

// Sources returns the text of every file that loaded, in load order, for the
// journal.
func (s *Set) Sources() []events.RuleSource {
	if s == nil {
		return nil
	}
	return slices.Clone(s.sources)
}

// Skipped returns the errors of files a lenient load left out.
func (s *Set) Skipped() []*LoadError {
	if s == nil {
		return nil
	}
	return slices.Clone(s.skipped)
}

// NetworkRules returns the network_rule entries, in load order.
func (s *Set) NetworkRules() []NetworkRule {
	if s == nil {
		return nil
	}
	return slices.Clone(s.network)
}

// Digest is a hex SHA-256 over the sources (paths and texts, in order).
func (s *Set) Digest() string {
	h := sha256.New()
	for _, src := range s.Sources() {
		h.Write([]byte(src.Path))
		h.Write([]byte{0})
		h.Write([]byte(src.Text))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// WithRule returns a new set with one more prefix rule, as an amendment adds
// it; the receiver is unchanged.
func (s *Set) WithRule(r Rule) *Set {
	n := &Set{byProgram: map[string][]*Rule{}, hosts: map[string][]string{}}
	if s != nil {
		for k, v := range s.byProgram {
			n.byProgram[k] = v[:len(v):len(v)]
		}
		for k, v := range s.hosts {
			n.hosts[k] = v
		}
		n.network, n.sources, n.skipped, n.userHome = s.network, s.sources, s.skipped, s.userHome
		n.rules = s.rules[:len(s.rules):len(s.rules)]
	}
	n.add(&r)
	return n
}

// AmendmentFile is the File of rules added with WithAllowRule.
const AmendmentFile = "<amendment>"

// WithAllowRule returns a new set with an allow rule for the exact prefix
// pattern, as an approved amendment adds it; the receiver is unchanged. An
// empty pattern returns the receiver.
func (s *Set) WithAllowRule(pattern []string) *Set {
	if len(pattern) == 0 {
		return s
	}
	alts := make([][]string, len(pattern))
	for i, t := range pattern {
		alts[i] = []string{t}
	}
	return s.WithRule(Rule{File: AmendmentFile, Pattern: alts, Decision: Allow})
}

func (s *Set) add(r *Rule) {
	if s.byProgram == nil {
		s.byProgram = map[string][]*Rule{}
	}
	for _, first := range r.Pattern[0] {
		s.byProgram[first] = append(s.byProgram[first], r)
	}
	s.rules = append(s.rules, r)
}

// hostAllows reports whether an absolute program path may use rules written
// for its basename: yes unless host_executable lists paths for that name and
// this is not one of them.
func (s *Set) hostAllows(name, program string) bool {
	paths, declared := s.hosts[name]
	if !declared {
		return true
	}
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if s.userHome == "" {
				continue
			}
			p = path.Join(s.userHome, rest)
		}
		if p == program {
			return true
		}
	}
	return false
}

// matchCommand returns the rules that match one command.
func (s *Set) matchCommand(cmd []string) []Match {
	if s == nil || len(cmd) == 0 {
		return nil
	}
	var out []Match
	var exact []*Rule
	for _, r := range s.byProgram[cmd[0]] {
		if r.matchesRest(cmd) {
			out = append(out, newMatch(r, cmd))
			exact = append(exact, r)
		}
	}
	if !strings.Contains(cmd[0], "/") {
		return out
	}
	base := path.Base(cmd[0])
	if base == cmd[0] || base == "/" || base == "." {
		return out
	}
	allowByBase := len(out) == 0 && path.IsAbs(cmd[0]) && s.hostAllows(base, cmd[0])
	for _, r := range s.byProgram[base] {
		if !r.matchesRest(cmd) || slices.Contains(exact, r) {
			continue
		}
		if r.Decision != Allow || allowByBase {
			out = append(out, newMatch(r, cmd))
		}
	}
	return out
}

func newMatch(r *Rule, cmd []string) Match {
	return Match{
		File:          r.File,
		Line:          r.Line,
		Pattern:       slices.Clone(cmd[:len(r.Pattern)]),
		Decision:      r.Decision,
		Justification: r.Justification,
	}
}
