package config

import (
	"fmt"
	"math"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"

	"github.com/docket-engine/docket/engine/hooks"
)

// codexDefaultTimeoutSec bounds a Codex hook written without a timeout:
// Claude Code's default, whose hooks Codex's follow.
const codexDefaultTimeoutSec = 600

// codexHandlerKeys are the keys of a Codex command handler Docket
// honours: statusMessage is what Codex's interface shows while it runs.
func codexHandlerKeys() []string { return []string{"type", "command", "timeout", "statusMessage"} }

// translateCodexHook turns a Codex PreToolUse command handler (h of group
// g) into Docket pre_tool hook tables, one per Docket shell tool, when
// Docket can run it as Codex would: its matcher selects Codex's Bash tool
// alone and it sets nothing Docket cannot honour. Otherwise it returns
// none and why.
func translateCodexHook(ch CodexHook, g, h tree) ([]tree, string) {
	for _, k := range sortedKeys(g) {
		if k != "matcher" && k != "hooks" {
			return nil, fmt.Sprintf("its group sets %s, which Docket cannot honour", k)
		}
	}
	for _, k := range sortedKeys(h) {
		if !slices.Contains(codexHandlerKeys(), k) {
			return nil, fmt.Sprintf("it sets %s, which Docket cannot honour", k)
		}
	}
	if strings.TrimSpace(ch.Command) == "" {
		return nil, "it has no command"
	}
	if _, ok := g["matcher"]; ok {
		if _, isString := g["matcher"].(string); !isString {
			return nil, "its matcher is not a string"
		}
	}
	if !codexMatcherIsBash(ch.Matcher) {
		return nil, fmt.Sprintf("its matcher %q selects other tools than Bash (apply_patch, MCP tools...), which Docket cannot tell a hook as Codex does; "+
			"a matcher of \"Bash\" alone runs, or write it as [[hooks.pre_tool]] (docs/cli.md, Hooks)", ch.Matcher)
	}
	timeout := float64(codexDefaultTimeoutSec)
	if v, ok := h["timeout"]; ok {
		var n float64
		switch x := v.(type) {
		case int64:
			n = float64(x)
		case float64:
			n = x
		default:
			return nil, "its timeout is not a number of seconds"
		}
		if !(n > 0 && n <= maxTimeoutSec) || math.IsNaN(n) {
			return nil, fmt.Sprintf("its timeout %v is not a number of seconds between 0 and %d", n, maxTimeoutSec)
		}
		timeout = n
	}
	var out []tree
	for _, tool := range hooks.CodexTools() {
		out = append(out, tree{
			"name":        fmt.Sprintf("codex-%s-%d.%d-%s", ch.Event, ch.Group, ch.Handler, tool),
			"tool":        tool,
			"command":     []any{"sh", "-c", ch.Command},
			"timeout_sec": timeout,
			// Codex runs its hooks as the user, unsandboxed: one that logs
			// or asks a local server works under Docket too.
			"sandbox":  false,
			"protocol": hooks.ProtocolCodex,
		})
	}
	return out, ""
}

// codexMatcherIsBash reports whether a Codex matcher (a regular
// expression on its hook tool names; "" and "*" match every tool) selects
// Bash and nothing else: a literal, or an alternation of literals, each
// of them Bash, anchored or not.
func codexMatcherIsBash(m string) bool {
	if m == "" || m == "*" {
		return false
	}
	re, err := syntax.Parse(m, syntax.Perl)
	if err != nil {
		return false
	}
	lits, ok := literals(re.Simplify())
	return ok && len(lits) > 0 && !slices.ContainsFunc(lits, func(s string) bool { return s != "Bash" })
}

// literals are the strings re matches when it is literals, anchors and
// alternations of them; ok is false for any other expression.
func literals(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCapture:
		return literals(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l, ok := literals(s)
			if !ok {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, true
	case syntax.OpConcat:
		var lit []string
		for _, s := range re.Sub {
			switch s.Op {
			case syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
				continue
			}
			l, ok := literals(s)
			if !ok || lit != nil {
				return nil, false
			}
			lit = l
		}
		return lit, lit != nil
	}
	return nil, false
}

// addPreTool appends hook h to ht's pre_tool list. A list spelled in
// another case ([[hooks.Pre_Tool]], which the decoder reads as pre_tool)
// is folded into pre_tool first, so that hookOrigins counts every hook
// of the layer under the one key.
func addPreTool(ht tree, h tree) {
	var list []any
	for _, k := range sortedKeys(ht) {
		if !strings.EqualFold(k, "pre_tool") {
			continue
		}
		l, _ := ht[k].([]any)
		list = append(list, l...)
		delete(ht, k)
	}
	ht["pre_tool"] = append(list, h)
}

func sortedKeys(t tree) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
