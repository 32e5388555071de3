package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/events"
)

// fixedHooks answers every call of a stage with the same verdicts and
// remembers which calls it was asked about.
type fixedHooks struct {
	pre, post []events.HookVerdict
	mu        sync.Mutex
	asked     []string // "stage:call"
}

func (h *fixedHooks) Run(_ context.Context, c hooks.Call) []events.HookVerdict {
	h.mu.Lock()
	h.asked = append(h.asked, string(c.Stage)+":"+c.CallID)
	h.mu.Unlock()
	if c.Stage == events.HookPostTool {
		return append([]events.HookVerdict(nil), h.post...)
	}
	return append([]events.HookVerdict(nil), h.pre...)
}

func verdict(d events.HookDecision, reason string) events.HookVerdict {
	return events.HookVerdict{Hook: 1, Name: "h", Command: []string{"/h"}, Decision: d, Reason: reason, Sandbox: events.SandboxReadOnly}
}

// TestHooksOnlyTighten: a hook's deny stops a call the policy would run,
// its ask forces a prompt the policy would skip (and that forced approval
// does not let a sandbox denial be retried unasked), its allow skips no
// prompt, and a forbidden call is denied before any hook is asked.
func TestHooksOnlyTighten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		approval string
		cmd      string
		hooks    *fixedHooks
		answers  []events.ReviewDecision
		rules    []events.RuleSource
		path     string
		asked    int
		hooked   bool
	}{
		{name: "deny stops a call the policy would run", approval: "on-failure", cmd: "touch $WS/a",
			hooks: &fixedHooks{pre: []events.HookVerdict{verdict(events.HookDeny, "no")}},
			path:  "deny:hook_denied finish:hook_denied", hooked: true},
		{name: "a failed hook with on_error deny stops it", approval: "on-failure", cmd: "touch $WS/a",
			hooks: &fixedHooks{pre: []events.HookVerdict{{Name: "h", Decision: events.HookDeny, Error: "timed out", Reason: "pre_tool hook h failed: timed out"}}},
			path:  "deny:hook_failed finish:hook_failed", hooked: true},
		{name: "ask forces a prompt, and the retry is still asked", approval: "on-failure", cmd: "touch $OUT/a",
			hooks:   &fixedHooks{pre: []events.HookVerdict{verdict(events.HookAsk, "look")}},
			answers: []events.ReviewDecision{events.Approved, events.Denied},
			path:    "ask:hook_ask run_sandboxed:user_approved sandbox_denied:sandbox_denial ask:sandbox_denial deny:user_denied finish:user_denied",
			asked:   2, hooked: true},
		{name: "allow skips no prompt", approval: "untrusted", cmd: "touch $WS/a",
			hooks:   &fixedHooks{pre: []events.HookVerdict{verdict(events.HookAllow, "")}},
			answers: []events.ReviewDecision{events.Denied},
			path:    "ask:untrusted_policy deny:user_denied finish:user_denied", asked: 1, hooked: true},
		{name: "a forbidden call is denied before any hook", approval: "on-failure", cmd: "touch $WS/a",
			hooks: &fixedHooks{pre: []events.HookVerdict{verdict(events.HookAllow, "")}},
			rules: []events.RuleSource{{Path: "f.rules", Text: `prefix_rule(pattern=["touch"], decision="forbidden")`}},
			path:  "deny:rule_forbidden finish:rule_forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, setup{approval: tc.approval, mode: "workspace-write", hooks: tc.hooks, answers: tc.answers, rules: tc.rules,
				script: shellLine("c1", tc.cmd) + "\n" + done})
			f.turn("go")
			if got := f.path("c1"); got != tc.path {
				t.Errorf("path %q, want %q", got, tc.path)
			}
			if len(f.asked()) != tc.asked {
				t.Errorf("asked %d times, want %d", len(f.asked()), tc.asked)
			}
			pre := false
			for _, a := range tc.hooks.asked {
				pre = pre || a == "pre_tool:c1"
			}
			if pre != tc.hooked {
				t.Errorf("pre_tool hook asked = %v, want %v (%v)", pre, tc.hooked, tc.hooks.asked)
			}
			if exists(f.ws+"/a") || exists(f.outside+"/a") {
				t.Error("the call wrote its file")
			}
		})
	}
}

// TestAPostToolHooksDenyReachesTheModel: a post_tool hook cannot undo the
// call, but what it says on a deny is appended to the model's output.
func TestAPostToolHooksDenyReachesTheModel(t *testing.T) {
	t.Parallel()
	h := &fixedHooks{post: []events.HookVerdict{verdict(events.HookDeny, "the build is now broken")}}
	f := newFixture(t, setup{approval: "on-failure", mode: "workspace-write", hooks: h, script: shellLine("c1", "touch $WS/b") + "\n" + done})
	f.turn("go")
	if !exists(f.ws + "/b") {
		t.Fatal("the call did not run")
	}
	recs, err := f.j.Call("c1")
	if err != nil {
		t.Fatal(err)
	}
	var out string
	verdicts := 0
	for _, r := range recs {
		b, _ := r.Decode()
		switch v := b.(type) {
		case *events.ToolOutput:
			out = v.Output
		case *events.HookVerdict:
			verdicts++
		}
	}
	if !strings.Contains(out, "[post_tool hook h: the build is now broken]") || verdicts != 1 {
		t.Fatalf("output %q with %d verdicts journaled", out, verdicts)
	}
}
