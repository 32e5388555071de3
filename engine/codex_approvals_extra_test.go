package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// codexExtras are Codex's approval tests outside scenarios() (approvals.json
// kind "extra"), each written out as Codex's test checks it. A check
// returns "" when Docket agrees, else what differs.
var codexExtras = map[string]func(t *testing.T) string{
	"approving_apply_patch_for_session_skips_future_prompts_for_same_file": func(t *testing.T) string {
		add := "*** Begin Patch\n*** Add File: $OUT/apply_patch_allow_session.txt\n+before\n*** End Patch\n"
		upd := "*** Begin Patch\n*** Update File: $OUT/apply_patch_allow_session.txt\n@@\n-before\n+after\n*** End Patch\n"
		f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
			answers: []events.ReviewDecision{events.ApprovedForSession},
			script:  patchItem("function", "p1", add) + "\n" + done + "\n" + patchItem("function", "p2", upd) + "\n" + done})
		f.turn("first")
		if n := len(f.asked()); n != 1 {
			return fmt.Sprintf("first patch: asked %d times, Codex once", n)
		}
		if res := f.turn("second"); res.Status != events.TurnCompleted || len(f.asked()) != 1 {
			return fmt.Sprintf("second patch to the same file: turn %s, asked %d times in all; Codex asks once (path %s)", res.Status, len(f.asked()), f.path("p2"))
		}
		if data, _ := os.ReadFile(filepath.Join(f.outside, "apply_patch_allow_session.txt")); !strings.Contains(string(data), "after") {
			return fmt.Sprintf("file holds %q, want the second patch applied", data)
		}
		return ""
	},
	"approving_execpolicy_amendment_persists_policy_and_skips_future_prompts": func(t *testing.T) string {
		cmd := "touch allow-prefix.txt"
		f := newFixture(t, setup{approval: "untrusted", mode: "read-only",
			answers: []events.ReviewDecision{events.ApprovedExecpolicyAmendment},
			script:  shellLine("c1", cmd) + "\n" + done + "\n" + shellLine("c2", cmd) + "\n" + done})
		f.turn("first")
		asked := f.asked()
		if len(asked) != 1 || !slices.Equal(asked[0].ProposedAmendment, []string{"touch", "allow-prefix.txt"}) {
			return fmt.Sprintf("asked %+v, Codex asks once proposing [touch allow-prefix.txt]", asked)
		}
		rulesText, _ := os.ReadFile(filepath.Join(f.home, "rules", "default.rules"))
		if !strings.Contains(string(rulesText), `prefix_rule(pattern=["touch", "allow-prefix.txt"], decision="allow")`) {
			return fmt.Sprintf("rules/default.rules holds %q", rulesText)
		}
		if o := parseCodexOutput(outputOf(f, "c1")); !o.zeroOrNone() || o.stdout != "" {
			return fmt.Sprintf("first run: %s (path %s)", o, f.path("c1"))
		}
		if res := f.turn("second"); res.Status != events.TurnCompleted || len(f.asked()) != 1 {
			return fmt.Sprintf("second run: turn %s, asked %d times in all, Codex once", res.Status, len(f.asked()))
		}
		if o := parseCodexOutput(outputOf(f, "c2")); !o.zeroOrNone() || o.stdout != "" {
			return fmt.Sprintf("second run: %s (path %s)", o, f.path("c2"))
		}
		if data, err := os.ReadFile(filepath.Join(f.ws, "allow-prefix.txt")); err != nil || len(data) != 0 {
			return fmt.Sprintf("allow-prefix.txt: %q, %v; want an empty file", data, err)
		}
		return ""
	},
	"invalid_requested_prefix_rule_falls_back_for_compound_command": func(t *testing.T) string {
		f, cmd := fallbackRuleFixture(t, nil)
		f.turn("first")
		asked := f.asked()
		if len(asked) != 1 {
			return fmt.Sprintf("asked %d times, Codex once", len(asked))
		}
		if !slices.Contains(asked[0].ProposedAmendment, cmd) {
			return fmt.Sprintf("proposed amendment %q; Codex proposes the whole command (containing %q)", asked[0].ProposedAmendment, cmd)
		}
		return ""
	},
	"approving_fallback_rule_for_compound_command_works": func(t *testing.T) string {
		f, _ := fallbackRuleFixture(t, []events.ReviewDecision{events.ApprovedExecpolicyAmendment})
		f.turn("first")
		if res := f.turn("again"); res.Status != events.TurnCompleted || len(f.asked()) != 1 {
			return fmt.Sprintf("the same compound command again: turn %s, asked %d times in all; Codex asks once (path %s)", res.Status, len(f.asked()), f.path("c2"))
		}
		if o := parseCodexOutput(outputOf(f, "c2")); !o.zeroOrNone() || o.stdout != "" {
			return fmt.Sprintf("second run: %s", o)
		}
		return ""
	},
	"compound_command_with_one_safe_command_still_requires_approval (test fn)": func(t *testing.T) string {
		f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write",
			answers: []events.ReviewDecision{events.Denied},
			rules:   []events.RuleSource{{Path: "/home/u/.docket/rules/default.rules", Text: `prefix_rule(pattern=["touch", "allow-prefix.txt"], decision="allow")`}},
			script:  shellLine("c1", "touch ./test.txt && rm ./test.txt") + "\n" + done})
		f.turn("go")
		asked := f.asked()
		if len(asked) != 1 || asked[0].Kind != events.ApprovalExec || asked[0].Command[len(asked[0].Command)-1] != "touch ./test.txt && rm ./test.txt" {
			return fmt.Sprintf("asked %+v, Codex asks once for the whole command", asked)
		}
		if exists(filepath.Join(f.ws, "test.txt")) {
			return "the denied command ran"
		}
		return ""
	},
	"matched_prefix_rule_runs_unsandboxed": func(t *testing.T) string {
		f := newFixture(t, setup{approval: "never", mode: "workspace-write",
			rules:  []events.RuleSource{{Path: "/home/u/.docket/rules/default.rules", Text: `prefix_rule(pattern=["touch"], decision="allow")`}},
			script: shellLine("c1", `touch "$OUT/zsh-fork-prefix-rule-unsandboxed.txt"`) + "\n" + done})
		f.turn("go")
		if len(f.asked()) != 0 {
			return "asked; Codex runs it without asking"
		}
		if o := parseCodexOutput(outputOf(f, "c1")); !o.zeroOrNone() || !exists(filepath.Join(f.outside, "zsh-fork-prefix-rule-unsandboxed.txt")) {
			return fmt.Sprintf("want the allowed touch to write outside the sandbox: %s (path %s)", o, f.path("c1"))
		}
		return ""
	},
}

// fallbackRuleFixture is Codex's compound command with an escalation
// request, asked twice (the prefix_rule argument Codex's test adds is not
// part of Docket's shell tool, CLI.md). It writes a file in /tmp; the name
// is the fixture's own so runs do not meet.
func fallbackRuleFixture(t *testing.T, answers []events.ReviewDecision) (*fixture, string) {
	dir := t.TempDir()
	target := filepath.Join(dir, "codex-fallback-rule-test.txt")
	cmd := fmt.Sprintf("touch %s && echo hello > %s", target, target)
	line := func(id string) string {
		a, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", cmd}, "sandbox_permissions": "require_escalated"})
		return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"shell","arguments":%s}]}`, id, a)
	}
	f := newFixture(t, setup{approval: "on-request", mode: "read-only", answers: answers,
		script: line("c1") + "\n" + done + "\n" + line("c2") + "\n" + done})
	return f, cmd
}
