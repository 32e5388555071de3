package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex 0.171 has hooks of its own format under the same [hooks] table as
// Docket's: [[hooks.PreToolUse]] groups of a matcher and handlers, and
// [hooks.state] recording which of them the user trusted. A Codex config
// Docket reads (the Codex home, a project's .codex/config.toml) must not
// stop Docket, and a hook Docket does not run must not be dropped
// silently: each is kept as a CodexHook, said at start and listed by
// `docket hooks` (docs/decisions.md, "Codex hooks in a Codex config").

// CodexHook is one handler of a Codex hook table that Docket read: one it
// runs as its own pre_tool hooks (DocketHooks), or one it does not (Why).
type CodexHook struct {
	// File and Line are where its group ([[hooks.EVENT]]) is written.
	File string
	Line int
	// Event is Codex's event name as written (PreToolUse, PreCompact...).
	Event string
	// Group and Handler number the matcher group within the event and the
	// handler within the group, from 1.
	Group, Handler int
	// Matcher is the group's matcher ("" for none); Type and Command the
	// handler's, as written.
	Matcher string
	Type    string
	Command string
	// Why says why Docket does not run it; "" when it became DocketHooks,
	// the pre_tool hooks that run it once the user reviewed them.
	Why         string
	DocketHooks []string
}

// Translated reports whether the hook became Docket hooks (DocketHooks).
func (h CodexHook) Translated() bool { return len(h.DocketHooks) > 0 }

// String names the hook for people: event, file and line.
func (h CodexHook) String() string {
	return fmt.Sprintf("Codex hook %s in %s:%d", h.Event, h.File, h.Line)
}

// Warning is what Docket says of it at start.
func (h CodexHook) Warning() string {
	return h.String() + " is not run by Docket: " + h.Why
}

// codexHookEvents are the event tables of Codex 0.171's [hooks], spelled
// as its config spells them.
func codexHookEvents() []string {
	return []string{"PreModelRequest", "PostModelRequest", "PreToolUse", "PermissionRequest", "PostToolUse",
		"PreCompact", "PostCompact", "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop",
		"SubagentStart", "SubagentStop", "Interrupt"}
}

// codexStateKey is Codex's record of the hooks the user trusted; Docket
// keeps its own (HookTrustFile), so it is ignored.
const codexStateKey = "state"

// isCodexHookKey reports whether key (from the document's root) lies in a
// Codex hook table: hooks.EVENT... or hooks.state....
func isCodexHookKey(key []string) bool {
	return len(key) >= 2 && key[0] == "hooks" && (key[1] == codexStateKey || slices.Contains(codexHookEvents(), key[1]))
}

// codexPostWhy is why Docket does not run a Codex PostToolUse hook: after
// a call, Codex's answers can stop the turn or replace the output, which a
// Docket post_tool hook cannot, and no answer can be read as a safe
// stand-in (before a call, a deny is).
const codexPostWhy = "after a call, a Codex hook's answer can stop the turn (\"continue\": false) or replace an MCP tool's output " +
	"(updatedMCPToolOutput), which a Docket post_tool hook cannot; write it as [[hooks.post_tool]] (docs/cli.md, Hooks)"

// takeCodexHooks removes the Codex hook tables from t, the tree of the
// file at path whose text is data, and returns their handlers. It never
// fails: what it cannot read is listed with why.
func takeCodexHooks(path string, data []byte, t tree) []CodexHook {
	ht, ok := t["hooks"].(tree)
	if !ok {
		return nil
	}
	var found bool
	for k := range ht {
		if isCodexHookKey([]string{"hooks", k}) {
			found = true
		}
	}
	if !found {
		return nil
	}
	lines := codexGroupLines(data)
	var out []CodexHook
	for _, ev := range codexHookEvents() {
		v, ok := ht[ev]
		if !ok {
			continue
		}
		groups, _ := v.([]any)
		if len(groups) == 0 {
			out = append(out, CodexHook{File: path, Line: lineAt(lines[ev], 0), Event: ev, Group: 1, Handler: 1,
				Why: "it is not a list of matcher groups Docket can read"})
		}
		for gi, g := range groups {
			line := lineAt(lines[ev], gi)
			gt, _ := g.(tree)
			matcher, _ := gt["matcher"].(string)
			handlers, _ := gt["hooks"].([]any)
			if len(handlers) == 0 {
				out = append(out, CodexHook{File: path, Line: line, Event: ev, Group: gi + 1, Handler: 1, Matcher: matcher,
					Why: "its group has no handlers Docket can read"})
			}
			for hi, h := range handlers {
				htab, _ := h.(tree)
				typ, _ := htab["type"].(string)
				cmd, _ := htab["command"].(string)
				ch := CodexHook{File: path, Line: line, Event: ev, Group: gi + 1, Handler: hi + 1,
					Matcher: matcher, Type: typ, Command: cmd, Why: codexWhy(ev, typ)}
				if ev == "PreToolUse" && typ == "command" {
					translated, why := translateCodexHook(ch, gt, htab)
					ch.Why = why
					for _, dh := range translated {
						ch.DocketHooks = append(ch.DocketHooks, dh["name"].(string))
						addPreTool(ht, dh)
					}
				}
				out = append(out, ch)
			}
		}
		delete(ht, ev)
	}
	delete(ht, codexStateKey)
	if len(ht) == 0 {
		delete(t, "hooks")
	}
	return out
}

// codexWhy says why Docket does not run a handler of type typ for event.
func codexWhy(event, typ string) string {
	switch {
	case typ != "command":
		return fmt.Sprintf("Docket runs only command hooks, and this handler's type is %q", typ)
	case event == "PostToolUse":
		return codexPostWhy
	case event == "PermissionRequest":
		return "Docket asks for approval itself and has no permission-request hook"
	}
	return "Docket has no " + event + " event; its hooks are pre_tool and post_tool"
}

// codexGroupLines is, for each Codex event, the line of each of its
// groups: each [[hooks.EVENT]] header (or a [hooks.EVENT] table's), or
// the line of hooks.EVENT = [...] for every group of an inline array.
func codexGroupLines(data []byte) map[string][]int {
	out := map[string][]int{}
	p := &unstable.Parser{}
	p.Reset(data)
	var prefix []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			// A [hooks.EVENT] table is no list of groups; its line still
			// says where it is.
			var line int
			prefix, line = keyOf(p, e.Key(), nil)
			if len(prefix) == 2 && isCodexHookKey(prefix) {
				out[prefix[1]] = append(out[prefix[1]], line)
			}
		case unstable.KeyValue:
			key, line := keyOf(p, e.Key(), prefix)
			if len(key) == 2 && isCodexHookKey(key) {
				out[key[1]] = append(out[key[1]], -line)
			}
		}
	}
	return out
}

// lineAt is the line of group i: its header, else the line of the inline
// array (stored negated) that holds every group.
func lineAt(lines []int, i int) int {
	switch {
	case i < len(lines) && lines[i] > 0:
		return lines[i]
	case len(lines) == 1 && lines[0] < 0:
		return -lines[0]
	}
	return 0
}

// withoutCodexHookErrors drops from a strict decode's unknown keys those
// in Codex hook tables (takeCodexHooks read them); ok is false when none
// is left.
func withoutCodexHookErrors(sm *toml.StrictMissingError) (*toml.StrictMissingError, bool) {
	kept := &toml.StrictMissingError{}
	for _, de := range sm.Errors {
		if !isCodexHookKey([]string(de.Key())) {
			kept.Errors = append(kept.Errors, de)
		}
	}
	return kept, len(kept.Errors) > 0
}

// codexHookWarnings are the start warnings of the hooks Docket does not
// run, and the notes of those it runs as its own.
func codexHookWarnings(hooks []CodexHook) (warnings, notes []string) {
	for _, h := range hooks {
		if h.Translated() {
			notes = append(notes, fmt.Sprintf("%s runs, once reviewed (`docket hooks`), as Docket pre_tool hooks %s, told each call as Codex tells it (protocol = \"codex\")",
				h, strings.Join(h.DocketHooks, ", ")))
			continue
		}
		warnings = append(warnings, h.Warning())
	}
	return warnings, notes
}
