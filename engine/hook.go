package engine

import (
	"context"
	"strings"

	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/policy"
)

// Hooks runs the operator's pre_tool and post_tool hooks for a call:
// *hooks.Runner in production, the journal's recorded verdicts in replay.
//
// Run MUST NOT fail: a hook that fails is a verdict whose Decision is its
// on_error and whose Error says what went wrong. It MUST return once ctx is
// done. The engine journals every verdict as an input before acting on it,
// so Run MUST NOT write the journal or run the call.
type Hooks interface {
	Run(ctx context.Context, c hooks.Call) []events.HookVerdict
}

// hookVerdict is what a call's pre_tool verdicts come to.
type hookVerdict struct {
	decision events.HookDecision // "" when no hook ran
	cause    states.Cause
	reason   string
}

// hookCall describes a call to its hooks.
func (t *turn) hookCall(cr *callRun, stage events.HookStage) hooks.Call {
	s := t.s
	c := hooks.Call{Stage: stage, SessionID: s.cfg.SessionID, TurnID: t.id, CallID: cr.call.ID, Tool: cr.call.Name,
		ApprovalPolicy: s.decider.Approval().String(), SandboxMode: s.SandboxMode(), Model: s.cfg.Session.Model}
	if p := cr.prep; p != nil {
		c.Argv, c.Cwd, c.Paths = p.Command, p.Cwd, p.Paths
		c.Server, c.MCPTool, c.Arguments = p.Server, p.MCPTool, p.Arguments
	}
	if c.Cwd == "" {
		c.Cwd = s.cfg.Cwd
	}
	return c
}

// runHooks runs (or, in replay, reads back) the hooks of one stage and
// journals each verdict as an input before anything acts on it.
func (t *turn) runHooks(ctx context.Context, cr *callRun, c hooks.Call) ([]events.HookVerdict, error) {
	s := t.s
	if s.cfg.Hooks == nil {
		return nil, nil
	}
	vs := s.cfg.Hooks.Run(ctx, c)
	for i := range vs {
		vs[i].CallID, vs[i].Stage = cr.call.ID, c.Stage
		if _, err := s.rec.append(cr.call.ID, vs[i]); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// preHooks runs the pre_tool hooks and combines their verdicts, stricter
// first: any deny (a failed hook's on_error included) stops the call, else
// any ask forces a prompt; an allow changes nothing.
func (t *turn) preHooks(ctx context.Context, cr *callRun) (hookVerdict, error) {
	vs, err := t.runHooks(ctx, cr, t.hookCall(cr, events.HookPreTool))
	if err != nil || len(vs) == 0 {
		return hookVerdict{}, err
	}
	var ask *events.HookVerdict
	for i, v := range vs {
		switch v.Decision {
		case events.HookDeny:
			if v.Error != "" {
				return hookVerdict{events.HookDeny, states.CauseHookFailed, v.Reason + " (on_error = deny)"}, nil
			}
			return hookVerdict{events.HookDeny, states.CauseHookDenied, "denied by pre_tool hook " + v.Name + reasonNote(v.Reason)}, nil
		case events.HookAsk:
			if ask == nil {
				ask = &vs[i]
			}
		}
	}
	if ask != nil {
		return hookVerdict{events.HookAsk, states.CauseHookAsk, "pre_tool hook " + ask.Name + " asks for approval" + reasonNote(ask.Reason)}, nil
	}
	return hookVerdict{decision: events.HookAllow}, nil
}

// postHooks runs the post_tool hooks of a call that ran and returns what
// they add to the model's view of it: the reason of each hook that said
// "deny" (the call cannot be undone, but the model should know) and of each
// that failed with on_error = deny.
func (t *turn) postHooks(ctx context.Context, cr *callRun, out events.ExecOutcome, sandboxed, success bool) (string, error) {
	if t.s.cfg.Hooks == nil {
		return "", nil
	}
	c := t.hookCall(cr, events.HookPostTool)
	c.Outcome = hooks.OutcomeOf(out, sandboxed, success, t.s.cfg.CaptureCap)
	vs, err := t.runHooks(ctx, cr, c)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, v := range vs {
		if v.Decision != events.HookDeny {
			continue
		}
		if v.Error != "" {
			b.WriteString("\n\n[" + v.Reason + "]")
			continue
		}
		b.WriteString("\n\n[post_tool hook " + v.Name + reasonNote(v.Reason) + "]")
	}
	return b.String(), nil
}

func reasonNote(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// hookAsk asks the user about a call the policy would have run unasked,
// because a pre_tool hook said "ask". Under approval policy never nobody can
// be asked, and the stricter answer is not to run it.
func (t *turn) hookAsk(ctx context.Context, cr *callRun, idx int, hv hookVerdict) (callResult, error) {
	if t.s.decider.Approval() == policy.Never {
		return t.deny(ctx, cr, states.CauseHookAsk, hv.reason+"; approval policy never asks anyone, so it was not run", StatusDeclined)
	}
	if err := t.gate.wait(ctx, idx); err != nil {
		cause, why := stopCause(ctx)
		return t.deny(ctx, cr, cause, why+" before it was asked", StatusDeclined)
	}
	cr.hookForced = true
	if err := cr.fire(ctx, states.Ask, states.CauseHookAsk, hv.reason); err != nil {
		return callResult{call: cr.call}, err
	}
	return t.askAndRun(ctx, cr, events.PhaseInitial, hv.reason)
}

func joinReasons(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
