package engine

import (
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
	"github.com/google/uuid"
)

// SpawnAgentName is the name the model calls a subagent by.
const SpawnAgentName = "spawn_agent"

// Default bounds on subagents, used when the session's configuration sets
// none (subagents.max_depth, subagents.max_children).
const (
	DefaultAgentMaxDepth    = 2
	DefaultAgentMaxChildren = 8
)

// maxAgentNameLen bounds a subagent's name: it labels prompts and
// addresses its calls in --decisions.
const maxAgentNameLen = 64

// SpawnAgentTool starts a subagent: a child session of its own, with its own
// journal, that inherits the session's policy, sandbox plan, rules and
// grants (narrowed, never widened, by the call's overrides) and whose final
// message is the call's output. The session's Config.Agents runs it.
type SpawnAgentTool struct{}

// Spec describes spawn_agent to the model.
func (SpawnAgentTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: SpawnAgentName,
		Kind: model.ToolFunction,
		Description: "Starts a subagent: a separate conversation that works on prompt with the same tools and returns its final message. " +
			"It runs under this session's approval policy and sandbox; the overrides may only make them stricter.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"prompt":{"type":"string","description":"the subagent's task"},` +
			`"name":{"type":"string","description":"a short name for the subagent (letters, digits, . _ -)"},` +
			`"approval_policy":{"type":"string","enum":["untrusted","on-request","on-failure","never"],"description":"stricter than this session's only"},` +
			`"sandbox_mode":{"type":"string","enum":["read-only","workspace-write","danger-full-access"],"description":"stricter than this session's only"},` +
			`"network_access":{"type":"boolean","description":"false turns the network off; true is allowed only when this session has it"}},` +
			`"required":["prompt"],"additionalProperties":false}`),
	}
}

// ParallelSafe: subagents of one response run side by side.
func (SpawnAgentTool) ParallelSafe() bool { return true }

type spawnArgs struct {
	Prompt         string `json:"prompt"`
	Name           string `json:"name"`
	ApprovalPolicy string `json:"approval_policy"`
	SandboxMode    string `json:"sandbox_mode"`
	NetworkAccess  *bool  `json:"network_access"`
}

// approvalStrictness orders approval policies by how often the user is
// asked: a child may move up this order, never down.
var approvalStrictness = map[policy.ApprovalPolicy]int{policy.Never: 0, policy.OnFailure: 1, policy.OnRequest: 2, policy.Untrusted: 3}

// sandboxStrictness orders sandbox modes by what a command may touch: a
// child may move up this order, never down.
var sandboxStrictness = map[policy.SandboxMode]int{policy.DangerFullAccess: 0, policy.WorkspaceWrite: 1, policy.ReadOnly: 2}

// ErrWiderPolicy is wrapped by the error a spawn_agent call gets when an
// override would give the child more than its parent has.
var ErrWiderPolicy = errors.New("a subagent may only narrow its parent's policy")

// Prepare validates the call, refuses overrides that would widen the
// parent's policy and a child beyond the depth or count bounds, and records
// the child (its id derived from the session and call ids, so replay derives
// the same) in the write-ahead record.
func (SpawnAgentTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	if c.Kind != model.ToolFunction {
		return nil, fmt.Errorf("spawn_agent is a function tool; it was called as a %s tool", c.Kind)
	}
	var a spawnArgs
	dec := json.NewDecoder(strings.NewReader(c.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("arguments are not valid spawn_agent arguments: %w", err)
	}
	if dec.More() {
		return nil, errors.New("arguments hold more than one JSON value")
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, errors.New("prompt is empty: say what the subagent should do")
	}
	name := a.Name
	if name == "" {
		name = c.ID
	}
	if err := checkAgentName(name); err != nil {
		return nil, err
	}
	limits := env.Agents
	depth := limits.Depth + 1
	if maxDepth := orDefault(env.Config.SubagentMaxDepth, DefaultAgentMaxDepth); depth > maxDepth {
		return nil, fmt.Errorf("subagent %q would be at depth %d; subagents.max_depth is %d", name, depth, maxDepth)
	}
	if n, maxN := limits.Ordinal(c.ID), orDefault(env.Config.SubagentMaxChildren, DefaultAgentMaxChildren); n > maxN {
		return nil, fmt.Errorf("subagent %q would be this session's subagent number %d; subagents.max_children is %d", name, n, maxN)
	}
	sc, err := narrowConfig(env.Config, a)
	if err != nil {
		return nil, fmt.Errorf("subagent %q: %w", name, err)
	}
	plan := narrowPlan(env.Plan, sc)
	spawn := &events.AgentSpawn{ChildID: ChildSessionID(env.SessionID, c.ID), Name: name, Prompt: a.Prompt, Depth: depth, Config: sc}
	shape := func(o events.ExecOutcome) (string, bool) {
		if o.Agent != nil && o.Agent.Status == events.TurnCompleted && o.Error == "" {
			return o.Output, true
		}
		why := o.Error
		if o.Output != "" {
			why += ": " + o.Output
		}
		return fmt.Sprintf("Subagent %s (%s) failed: %s", name, spawn.ChildID, strings.TrimPrefix(why, ": ")), false
	}
	return &PreparedCall{
		ApprovalKind: events.ApprovalExec,
		Cwd:          env.Cwd,
		Requirement: policy.Requirement{Kind: policy.Skip, Cause: policy.CausePolicySkip,
			Reason: "starting a subagent runs nothing itself; its calls are decided under its own (inherited) policy"},
		Start: events.ExecStarted{Tool: SpawnAgentName, Cwd: env.Cwd, Sandbox: plan, Agent: spawn},
		Shape: shape,
	}, nil
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// ChildSessionID is the session id of the subagent a call starts, derived
// from the parent's session id and the call id, so a resumed or replayed
// parent names the same child. It is UUIDv7-shaped with the parent's
// timestamp (when the parent's id is a UUIDv7), so lists ordered by id keep
// a child next to its parent rather than among the newest sessions.
func ChildSessionID(parentID, callID string) string {
	sum := sha1.Sum([]byte("docket-subagent\x00" + parentID + "\x00" + callID))
	var u uuid.UUID
	copy(u[:], sum[:16])
	if p, err := uuid.Parse(parentID); err == nil && p.Version() == 7 {
		copy(u[:6], p[:6])
	}
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u.String()
}

func checkAgentName(name string) error {
	if len(name) > maxAgentNameLen {
		return fmt.Errorf("name %q is longer than %d bytes", name[:maxAgentNameLen]+"...", maxAgentNameLen)
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		ok := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-'
		if !ok {
			return fmt.Errorf("name %q: use letters, digits, '.', '_' and '-' only (it addresses the subagent's calls as NAME/CALL_ID)", name)
		}
	}
	return nil
}

// narrowConfig applies a spawn_agent call's overrides to the parent's
// configuration, refusing any that would widen it.
func narrowConfig(parent events.SessionConfig, a spawnArgs) (events.SessionConfig, error) {
	sc := parent
	sc.WritableRoots = append([]string(nil), parent.WritableRoots...)
	if a.ApprovalPolicy != "" {
		want, err := policy.ParseApprovalPolicy(a.ApprovalPolicy)
		if err != nil {
			return sc, err
		}
		have, err := policy.ParseApprovalPolicy(orString(parent.ApprovalPolicy, string(policy.OnRequest)))
		if err != nil {
			return sc, err
		}
		if approvalStrictness[want] < approvalStrictness[have] {
			return sc, fmt.Errorf("%w: approval_policy %q asks less often than this session's %q", ErrWiderPolicy, want, have)
		}
		sc.ApprovalPolicy = want.String()
	}
	if a.SandboxMode != "" {
		want, err := policy.ParseSandboxMode(a.SandboxMode)
		if err != nil {
			return sc, err
		}
		have, err := policy.ParseSandboxMode(orString(parent.SandboxMode, string(policy.ReadOnly)))
		if err != nil {
			return sc, err
		}
		if sandboxStrictness[want] < sandboxStrictness[have] {
			return sc, fmt.Errorf("%w: sandbox_mode %q allows more than this session's %q", ErrWiderPolicy, want, have)
		}
		sc.SandboxMode = want.String()
		if want == policy.ReadOnly {
			sc.WritableRoots = nil
		}
	}
	if a.NetworkAccess != nil {
		if *a.NetworkAccess && !parent.NetworkAccess {
			return sc, fmt.Errorf("%w: network_access true, but this session has no network", ErrWiderPolicy)
		}
		sc.NetworkAccess = *a.NetworkAccess
	}
	return sc, nil
}

func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// narrowPlan is the parent's sandbox plan cut down to the child's
// configuration: read-only drops the writable roots, no network drops the
// network. It never adds anything the parent's plan lacks; a child that
// moves from danger-full-access to a sandbox gets a read-only plan.
func narrowPlan(parent events.SandboxPlan, sc events.SessionConfig) events.SandboxPlan {
	p := parent
	p.WritableRoots = append([]string(nil), parent.WritableRoots...)
	p.ReadOnlySubpaths = append([]string(nil), parent.ReadOnlySubpaths...)
	mode, err := policy.ParseSandboxMode(sc.SandboxMode)
	if err != nil {
		return p
	}
	switch mode {
	case policy.ReadOnly:
		p.Mode = events.SandboxReadOnly
		p.WritableRoots = nil
	case policy.WorkspaceWrite:
		if !parent.Sandboxed() {
			// The parent had no sandbox plan to narrow: the child gets the
			// strictest sandbox rather than a made-up set of roots.
			p = events.SandboxPlan{Mode: events.SandboxReadOnly}
		}
	}
	p.Network = p.Network && sc.NetworkAccess
	return p
}

// AgentLimits is what spawn_agent's Prepare knows of the session's
// subagents: its own depth and where each call stands in its count.
type AgentLimits struct {
	Depth   int
	Ordinal func(callID string) int
}
