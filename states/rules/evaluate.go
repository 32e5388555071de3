package rules

import (
	"slices"

	"github.com/docket-engine/docket/states/cmdsafety"
)

// Match is one rule that matched a command. Pattern is the prefix of the
// command the rule matched (alternatives resolved).
type Match struct {
	File          string   `json:"file"`
	Line          int      `json:"line"`
	Pattern       []string `json:"pattern"`
	Decision      Decision `json:"decision"`
	Justification string   `json:"justification,omitempty"`
}

// Segment is one command of a script (or the whole argv) with the rules
// that matched it.
type Segment struct {
	Command  []string
	Decision Decision
	Matched  []Match
}

// Allowed reports whether an explicit allow rule matched this segment and
// nothing stricter did.
func (s Segment) Allowed() bool { return s.Decision == Allow }

// Evaluation is the verdict of a rule set on one argv.
type Evaluation struct {
	// Decision is the strictest decision of any match, None when no rule matched.
	Decision Decision
	// Matched lists every distinct matching rule, in command then load order.
	Matched []Match
	// Segments are the commands whose allow status decides a Skip: the plain
	// commands of a script, or the argv itself.
	Segments []Segment
	// Plain is false for a shell script too dynamic to split.
	Plain bool
}

// AllAllowed reports whether every segment hit an explicit allow rule and no
// rule anywhere was stricter: the command may run without asking, and
// without the sandbox.
func (e Evaluation) AllAllowed() bool {
	if e.Decision != Allow || len(e.Segments) == 0 {
		return false
	}
	for _, s := range e.Segments {
		if !s.Allowed() {
			return false
		}
	}
	return true
}

// Strictest returns the first match with the evaluation's decision, for
// reasons and audits; ok is false when nothing matched.
func (e Evaluation) Strictest() (Match, bool) {
	for _, m := range e.Matched {
		if m.Decision == e.Decision {
			return m, true
		}
	}
	return Match{}, false
}

// Evaluate matches argv against the set (a nil set matches nothing). Shell
// scripts are evaluated per command as the package documentation describes.
func (s *Set) Evaluate(argv []string) Evaluation {
	return s.EvaluateScript(cmdsafety.Analyze(argv))
}

// EvaluateScript is Evaluate on an analysed argv, so that a caller asking
// other questions of the same script parses it only once.
func (s *Set) EvaluateScript(sc *cmdsafety.Script) Evaluation {
	segs, plain := sc.Segments()
	if !plain {
		// A script that is one command fed by here-documents is judged
		// by that command, as Codex does; it stays not plain (never
		// known-safe), its one segment standing for the whole script.
		if cmd, ok := sc.HeredocCommand(); ok {
			segs = [][]string{cmd}
		}
	}
	ev := Evaluation{Decision: None, Plain: plain, Segments: make([]Segment, len(segs))}
	seen := map[matchKey]bool{}
	record := func(ms []Match, strictOnly bool) Decision {
		d := None
		for _, m := range ms {
			if strictOnly && m.Decision == Allow {
				continue
			}
			d = Stricter(d, m.Decision)
			k := matchKey{m.File, m.Line, joinNUL(m.Pattern)}
			if !seen[k] {
				seen[k] = true
				ev.Matched = append(ev.Matched, m)
			}
		}
		ev.Decision = Stricter(ev.Decision, d)
		return d
	}
	for i, cmd := range segs {
		ms := s.matchCommand(cmd)
		ev.Segments[i] = Segment{Command: slices.Clone(cmd), Matched: ms, Decision: record(ms, false)}
	}
	if _, _, isShell := sc.ShellScript(); isShell {
		if plain {
			record(s.matchCommand(sc.Argv()), true)
		} else {
			for _, cmd := range sc.LiteralCommands() {
				record(s.matchCommand(cmd), true)
			}
		}
	}
	return ev
}

type matchKey struct {
	file    string
	line    int
	pattern string
}

func joinNUL(ss []string) string {
	n := 0
	for _, s := range ss {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for _, s := range ss {
		b = append(b, s...)
		b = append(b, 0)
	}
	return string(b)
}
