package cmdsafety

import (
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// ShellScript reports whether argv is exactly `SHELL -c SCRIPT` or
// `SHELL -lc SCRIPT` for bash, sh or zsh (by basename), and returns the
// shell's basename and the script.
func ShellScript(argv []string) (shell, script string, ok bool) {
	if len(argv) != 3 || (argv[1] != "-c" && argv[1] != "-lc") {
		return "", "", false
	}
	switch name := path.Base(argv[0]); name {
	case "bash", "sh", "zsh":
		return name, argv[2], true
	}
	return "", "", false
}

// Commands splits argv into the plain commands it runs. An argv that is not a
// shell wrapper is returned as its own single command. For a wrapper, ok is
// false when the script is empty or contains anything dynamic (see the package
// documentation); the caller must then treat argv as one opaque command.
func Commands(argv []string) ([][]string, bool) {
	return Analyze(argv).Commands()
}

// parsers reuse mvdan.cc/sh parsers, one pool per dialect: a new parser
// allocates about 17 KiB, and every call analyses at least one script. A
// pool holds no state a caller can observe; a parser resets itself at the
// start of every Parse.
var parsers = [...]sync.Pool{
	{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }},
	{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangPOSIX)) }},
	{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangZsh)) }},
}

func parse(shell, script string) (*syntax.File, error) {
	pool := &parsers[0]
	switch shell {
	case "sh":
		pool = &parsers[1]
	case "zsh":
		pool = &parsers[2]
	}
	p := pool.Get().(*syntax.Parser)
	defer pool.Put(p)
	growStack(len(script))
	return p.Parse(strings.NewReader(script), "")
}

// growStack makes room on the goroutine's stack for a parse in one step.
// The engine decides each call on a goroutine of its own, whose stack starts
// at 2 KiB; the parser's recursion would grow it by doubling, copying the
// whole stack at each step, and those copies cost more than the parse itself
// (BenchmarkExecRequirementDynamicScriptNewGoroutine in package policy). One
// 8 KiB frame makes the runtime grow it once, to a size the parse fits in;
// where the stack is already large it costs about 0.1 µs.
//
//go:noinline
func growStack(n int) byte {
	var frame [8 << 10]byte
	frame[n%len(frame)] = 1
	return frame[n/2%len(frame)]
}

func plainStmt(st *syntax.Stmt, out *[][]string) bool {
	if st == nil || st.Negated || st.Background || st.Coprocess || st.Disown || len(st.Redirs) > 0 {
		return false
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return false
		}
		words := make([]string, 0, len(c.Args))
		for _, w := range c.Args {
			s, ok := literalWord(w)
			if !ok {
				return false
			}
			words = append(words, s)
		}
		*out = append(*out, words)
		return true
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe:
			return plainStmt(c.X, out) && plainStmt(c.Y, out)
		}
	}
	return false
}

// literalWord returns the value a word has after quote removal, or false if
// the word is subject to any expansion.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if strings.ContainsAny(v, "*?[]{}") {
				return "", false
			}
			if i == 0 && (strings.HasPrefix(v, "~") || strings.HasPrefix(v, "=")) {
				return "", false
			}
			if !unescapeUnquoted(&b, v) {
				return "", false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				unescapeDouble(&b, lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescapeUnquoted applies backslash removal outside quotes.
func unescapeUnquoted(b *strings.Builder, v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(v) {
			return false
		}
		i++
		if v[i] != '\n' {
			b.WriteByte(v[i])
		}
	}
	return true
}

// unescapeDouble applies backslash removal inside double quotes, where a
// backslash only escapes $ ` " \ and newline.
func unescapeDouble(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
}
