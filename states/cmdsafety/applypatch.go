package cmdsafety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// PatchInvocation is an apply_patch call the model made through the shell
// tool instead of the apply_patch tool.
type PatchInvocation struct {
	// Patch is the patch text, as the command would have fed it to apply_patch.
	Patch string
	// Dir is the directory of a leading `cd DIR &&`, as written ("" when
	// there is none); relative paths are relative to the call's workdir.
	Dir string
}

// applyPatchNames are the program names Codex intercepts.
func isApplyPatchName(s string) bool { return s == "apply_patch" || s == "applypatch" }

// ApplyPatchInvocation recognises the shapes in which Codex intercepts
// apply_patch sent through the shell, and only those (codex-rs/apply-patch
// invocation.rs):
//
//   - ["apply_patch", PATCH] or ["applypatch", PATCH];
//   - [SHELL, "-lc"|"-c", SCRIPT] for bash, sh or zsh, where SCRIPT is one
//     statement: `apply_patch <<DELIM` with a here-document and nothing
//     else (no arguments, no other redirection, no further command), or
//     `cd DIR && apply_patch <<DELIM` where DIR is one literal word (bare,
//     single- or double-quoted without expansions).
//
// The here-document body is taken as written, as Codex does. Anything else
// is an ordinary command.
func ApplyPatchInvocation(argv []string) (PatchInvocation, bool) {
	if len(argv) == 2 && isApplyPatchName(argv[0]) {
		return PatchInvocation{Patch: argv[1]}, true
	}
	shell, script, ok := ShellScript(argv)
	if !ok || !strings.Contains(script, "<<") {
		return PatchInvocation{}, false
	}
	f, err := parse(shell, script)
	if err != nil || len(f.Stmts) != 1 {
		return PatchInvocation{}, false
	}
	st := f.Stmts[0]
	if !bareStmt(st) {
		return PatchInvocation{}, false
	}
	var dir string
	call := st
	if bin, ok := st.Cmd.(*syntax.BinaryCmd); ok {
		if len(st.Redirs) != 0 || bin.Op != syntax.AndStmt || !bareStmt(bin.X) || !bareStmt(bin.Y) || len(bin.X.Redirs) != 0 {
			return PatchInvocation{}, false
		}
		cd, ok := bin.X.Cmd.(*syntax.CallExpr)
		if !ok || len(cd.Assigns) != 0 || len(cd.Args) != 2 {
			return PatchInvocation{}, false
		}
		if name, ok := literalWord(cd.Args[0]); !ok || name != "cd" {
			return PatchInvocation{}, false
		}
		if dir, ok = literalWord(cd.Args[1]); !ok || dir == "" {
			return PatchInvocation{}, false
		}
		call = bin.Y
	}
	ce, ok := call.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) != 0 || len(ce.Args) != 1 || len(call.Redirs) != 1 {
		return PatchInvocation{}, false
	}
	if name, ok := rawLiteral(ce.Args[0]); !ok || !isApplyPatchName(name) {
		return PatchInvocation{}, false
	}
	r := call.Redirs[0]
	if r.Op != syntax.Hdoc || r.N != nil || r.Hdoc == nil {
		return PatchInvocation{}, false
	}
	delim, ok := literalWord(r.Word)
	start := int(r.Hdoc.Pos().Offset())
	if !ok || start < 0 || start > len(script) {
		return PatchInvocation{}, false
	}
	return PatchInvocation{Patch: hereDocBody(script[start:], delim), Dir: dir}, true
}

// hereDocBody returns rest up to the line that is exactly delim (the
// parser's positions for a here-document run past its body, so the body is
// found again here); without such a line, all of rest, as bash reads it.
func hereDocBody(rest, delim string) string {
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if line == delim {
			return rest[:off]
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return rest
}

// bareStmt is a statement without `!`, `&` or a coprocess.
func bareStmt(st *syntax.Stmt) bool {
	return st != nil && st.Cmd != nil && !st.Negated && !st.Background && !st.Coprocess
}

// rawLiteral is a word that is one unquoted literal.
func rawLiteral(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return lit.Value, true
}

// HeredocCommand reports whether a shell wrapper's script is one simple
// command whose words are all literal and whose only redirections are
// here-documents (`python3 <<'PY' ... PY`), and returns that command. Codex
// evaluates rules against it (parse_shell_lc_single_command_prefix), so an
// allow rule for `python3` covers `python3 <<'PY' ...`; it is never
// known-safe, as Codex's safety check parses plain scripts only.
func (s *Script) HeredocCommand() ([]string, bool) {
	if !s.isShell || !strings.Contains(s.text, "<<") {
		return nil, false
	}
	f := s.syntaxTree()
	if f == nil || len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !bareStmt(st) || !ok || len(ce.Assigns) != 0 || len(ce.Args) == 0 || len(st.Redirs) == 0 {
		return nil, false
	}
	for _, r := range st.Redirs {
		if (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.N != nil || r.Hdoc == nil {
			return nil, false
		}
		// An unquoted delimiter lets the shell expand the body: a `$(...)`
		// there runs before the command does, so only a literal body counts.
		for _, part := range r.Hdoc.Parts {
			if _, lit := part.(*syntax.Lit); !lit {
				return nil, false
			}
		}
	}
	cmd := make([]string, 0, len(ce.Args))
	for _, w := range ce.Args {
		lit, ok := literalWord(w)
		if !ok {
			return nil, false
		}
		cmd = append(cmd, lit)
	}
	return cmd, true
}
