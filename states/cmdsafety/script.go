package cmdsafety

import "mvdan.cc/sh/v3/syntax"

// Script is one argv analysed once: its shell script, if it has one, is
// parsed at most once, and every classifier answers from that parse. Each
// answer is computed on first use and kept, so a Script is for one goroutine
// at a time. It holds argv without copying it, and the slices it returns are
// shared between calls: callers must modify neither.
type Script struct {
	argv    []string
	shell   string
	text    string
	isShell bool

	parsed bool
	file   *syntax.File // nil when argv is no wrapper or its script does not parse

	cmdsDone bool
	cmds     [][]string
	plain    bool
	segs     [][]string

	litsDone bool
	lits     [][]string

	safeDone   bool
	safe       bool
	dangerDone bool
	danger     bool

	// parts are the analyses of a plain script's commands, made on demand
	// so that a nested wrapper (`bash -lc "sh -c 'ls'"`) is parsed once too.
	parts []*Script
}

// Analyze prepares argv for classification; it parses nothing until a
// question needs the parse.
func Analyze(argv []string) *Script {
	s := &Script{argv: argv}
	s.shell, s.text, s.isShell = ShellScript(argv)
	return s
}

// Argv returns the argv the script was built from.
func (s *Script) Argv() []string { return s.argv }

// ShellScript is the package function ShellScript on the analysed argv.
func (s *Script) ShellScript() (shell, script string, ok bool) {
	return s.shell, s.text, s.isShell
}

// syntaxTree returns the parse of a wrapper's script, nil when argv is no
// wrapper or the script does not parse; it parses on the first call only.
func (s *Script) syntaxTree() *syntax.File {
	if !s.parsed {
		s.parsed = true
		if s.isShell {
			if f, err := parse(s.shell, s.text); err == nil {
				s.file = f
			}
		}
	}
	return s.file
}

// Commands is the package function Commands on the analysed argv.
func (s *Script) Commands() ([][]string, bool) {
	s.split()
	return s.cmds, s.plain
}

// Segments is the package function Segments on the analysed argv.
func (s *Script) Segments() (segments [][]string, plain bool) {
	s.split()
	return s.segs, s.plain
}

func (s *Script) split() {
	if s.cmdsDone {
		return
	}
	s.cmdsDone = true
	s.cmds, s.plain = s.commands()
	s.segs = s.cmds
	if !s.plain {
		s.segs = [][]string{s.argv}
	}
}

func (s *Script) commands() ([][]string, bool) {
	if len(s.argv) == 0 {
		return nil, false
	}
	if !s.isShell {
		return [][]string{s.argv}, true
	}
	f := s.syntaxTree()
	if f == nil {
		return nil, false
	}
	var out [][]string
	for _, st := range f.Stmts {
		if !plainStmt(st, &out) {
			return nil, false
		}
	}
	return out, len(out) > 0
}

// LiteralCommands is the package function LiteralCommands on the analysed
// argv.
func (s *Script) LiteralCommands() [][]string {
	if s.litsDone {
		return s.lits
	}
	s.litsDone = true
	if !s.isShell {
		return nil
	}
	// A plain script's commands are all its simple commands, every word
	// literal, in walk order: the walk would find exactly them again.
	if cmds, plain := s.Commands(); plain {
		s.lits = cmds
		return s.lits
	}
	if f := s.syntaxTree(); f != nil {
		s.lits = literalCommands(f)
	}
	return s.lits
}

// literalCommands walks a parsed script for LiteralCommands.
func literalCommands(f *syntax.File) [][]string {
	var out [][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		var words []string
		for _, w := range call.Args {
			s, ok := literalWord(w)
			if !ok {
				break
			}
			words = append(words, s)
		}
		if len(words) > 0 {
			out = append(out, words)
		}
		return true
	})
	return out
}

// KnownSafe is the package function IsKnownSafe on the analysed argv.
func (s *Script) KnownSafe() bool {
	if !s.safeDone {
		s.safeDone = true
		s.safe = s.knownSafe()
	}
	return s.safe
}

func (s *Script) knownSafe() bool {
	if len(s.argv) == 0 || hasShellMeta(s.argv) {
		return false
	}
	if isSafeExec(s.argv) {
		return true
	}
	if !s.isShell {
		return false
	}
	cmds, ok := s.Commands()
	if !ok {
		return false
	}
	for _, c := range cmds {
		if hasShellMeta(c) || !isSafeExec(c) {
			return false
		}
	}
	return true
}

// Dangerous is the package function IsDangerous on the analysed argv.
func (s *Script) Dangerous() bool {
	if !s.dangerDone {
		s.dangerDone = true
		s.danger = s.dangerous()
	}
	return s.danger
}

func (s *Script) dangerous() bool {
	if dangerousExec(s.argv) {
		return true
	}
	for _, c := range s.LiteralCommands() {
		if dangerousExec(c) {
			return true
		}
	}
	return false
}

// Segment returns the analysis of the i-th command of Segments: the
// receiver itself when argv is its own only segment. It panics when i is out
// of range, as indexing Segments would.
func (s *Script) Segment(i int) *Script {
	segs, plain := s.Segments()
	if !plain || !s.isShell {
		_ = segs[i]
		return s
	}
	if s.parts == nil {
		s.parts = make([]*Script, len(segs))
	}
	if s.parts[i] == nil {
		s.parts[i] = Analyze(segs[i])
	}
	return s.parts[i]
}
