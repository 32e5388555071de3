package audit

import (
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/sandbox/layers"
)

// Outcomes of a call, as the report spells them.
const (
	OutcomeCompleted   = "completed"
	OutcomeFailed      = "failed"
	OutcomeDenied      = "denied"
	OutcomeInterrupted = "interrupted"
	OutcomeInvalid     = "invalid"
	// OutcomePending is a call the journal leaves unfinished: parked in
	// awaitingDecision, in flight at a crash, or cut off by damage.
	OutcomePending = "pending"
)

// Options selects what an audit covers.
type Options struct {
	// CallID audits one call, read through the call index.
	CallID string
	// UnsandboxedOnly keeps only the calls that ran without a sandbox.
	UnsandboxedOnly bool
	// NetworkOnly makes the text writer list the session's network
	// decisions and connections instead of its calls (audit --network).
	NetworkOnly bool
}

// Report is the whole audit of a session, in the JSON shape CLI.md gives
// for `docket audit --json` (with the policy, rules, amendments, violations
// and damage the brief adds).
type Report struct {
	SessionID string `json:"session_id"`
	Journal   string `json:"journal"`
	Policy    Policy `json:"policy"`
	// Parent is set for a subagent's session: the session and call that
	// started it, whose approver answered its requests.
	Parent *Parent `json:"parent,omitempty"`
	Rules  Rules   `json:"rules"`
	// HooksUntrusted are the project hooks configured but not run because
	// the user had not trusted them (HooksUntrustedSetting), one per entry:
	// "did not run: untrusted", which is not "no hook".
	HooksUntrusted []string `json:"hooks_untrusted,omitempty"`
	Calls          []Call   `json:"calls"`
	// Events are the session's compactions, policy changes and prompts with attachments,
	// in journal order (see Event); the JSON writer lists them after the
	// calls, the text and HTML writers among them.
	Events     []Event     `json:"events,omitempty"`
	Amendments []Amendment `json:"amendments,omitempty"`
	// Processes are the session's long-lived processes, each as one story.
	Processes []Process `json:"processes,omitempty"`
	// Network is every network decision and connection of the session
	// (of the audited call, with --call), in journal order.
	Network    []NetworkEntry `json:"network,omitempty"`
	Violations []Violation    `json:"violations,omitempty"`
	Damaged    *Damage        `json:"damaged,omitempty"`
}

// Policy is the approval policy and sandbox configuration in force, from the
// session_started record.
type Policy struct {
	ApprovalPolicy string `json:"approval_policy"`
	SandboxMode    string `json:"sandbox_mode"`
	NetworkAccess  bool   `json:"network_access"`
	// EgressProxy says the session's sandboxed commands reach the network
	// only through its egress proxy (the plan's egress).
	EgressProxy bool `json:"egress_proxy,omitempty"`
	// NetworkInconsistent says the session_started plan claims both a
	// direct network and the egress proxy, which no plan docket builds
	// does: the audit takes the network as on and says so.
	NetworkInconsistent   bool     `json:"network_inconsistent,omitempty"`
	WritableRoots         []string `json:"writable_roots,omitempty"`
	RequireProtectedPaths bool     `json:"require_protected_paths,omitempty"`
	// Bypassed: the session was started with
	// --dangerously-bypass-approvals-and-sandbox.
	Bypassed bool `json:"dangerously_bypass_approvals_and_sandbox,omitempty"`
}

// BypassSetting is the session setting that records
// --dangerously-bypass-approvals-and-sandbox.
const BypassSetting = "dangerously_bypass_approvals_and_sandbox"

// HooksUntrustedSetting is the session setting naming, one per line, the
// project hooks that did not run for want of the user's review (written
// by the CLI at session start).
const HooksUntrustedSetting = "docket.hooks_untrusted"

// Rules names the rules files in force when the session started and the
// digest recorded over them.
type Rules struct {
	Files  []string `json:"files"`
	Digest string   `json:"digest,omitempty"`
}

// Amendment is an allow rule the user saved during the session.
type Amendment struct {
	CallID  string   `json:"call_id"`
	Seq     uint64   `json:"seq"`
	Pattern []string `json:"pattern"`
	Line    string   `json:"line"`
	File    string   `json:"file,omitempty"`
	Written bool     `json:"written"`
}

// Call is the audit of one tool call.
type Call struct {
	CallID         string       `json:"call_id"`
	Tool           string       `json:"tool"`
	Command        []string     `json:"command"`
	Cwd            string       `json:"cwd"`
	FinalState     string       `json:"final_state"`
	Outcome        string       `json:"outcome"`
	ExitCode       *int         `json:"exit_code"`
	RanUnsandboxed bool         `json:"ran_unsandboxed"`
	WhyUnsandboxed string       `json:"why_unsandboxed"`
	Transitions    []Transition `json:"transitions"`
	Decisions      []Decision   `json:"decisions"`
	// Sandbox is the sandbox of the call's first run (the one that may have
	// been denied); null when the call never ran.
	Sandbox    *Sandbox  `json:"sandbox"`
	Requests   []Request `json:"approval_requests,omitempty"`
	Attempts   []Attempt `json:"attempts,omitempty"`
	Violations []string  `json:"violations,omitempty"`
	// Refused is set for a call the engine refused before anything ran,
	// because its call id was unusable (empty, repeated, not printable).
	Refused *Refusal `json:"refused,omitempty"`
	// Hooks are the verdicts of the pre_tool and post_tool hooks that
	// judged the call, in journal order.
	Hooks []Hook `json:"hooks,omitempty"`
	// Network are the call's network decisions and connections, through
	// the session's egress proxy, in journal order.
	Network []NetworkEntry `json:"network,omitempty"`
}

// Hook is one hook's recorded verdict on a call.
type Hook struct {
	Seq      uint64   `json:"seq"`
	Stage    string   `json:"stage"`
	Name     string   `json:"name"`
	Command  []string `json:"command"`
	Decision string   `json:"decision"`
	Reason   string   `json:"reason,omitempty"`
	// Error says how the hook failed; Decision is then its on_error.
	Error      string `json:"error,omitempty"`
	ExitCode   int    `json:"exit_code"`
	DurationMs int64  `json:"duration_ms"`
	Sandbox    string `json:"sandbox"`
}

// FinalRefused is the final state of a refused call: it never had a state
// machine, so it has no state of the FSM's.
const FinalRefused = "refused"

// Refusal says why a call was refused before it ran, from its invalid_call
// record. Position is the call's index among its response's calls, from 0.
type Refusal struct {
	Seq      uint64 `json:"seq"`
	Position int    `json:"position"`
	Reason   string `json:"reason"`
}

// Transition is one recorded move of the call's state machine.
type Transition struct {
	Seq    uint64 `json:"seq"`
	From   string `json:"from"`
	Event  string `json:"event"`
	To     string `json:"to"`
	Cause  string `json:"cause"`
	Reason string `json:"reason"`
	At     string `json:"at"`
}

// Decision is one answer to an approval request.
type Decision struct {
	Seq       uint64                `json:"seq"`
	Phase     events.Phase          `json:"phase"`
	Decision  events.ReviewDecision `json:"decision"`
	Source    events.DecisionSource `json:"source"`
	At        string                `json:"at"`
	Amendment []string              `json:"amendment,omitempty"`
	// Feedback is what the user typed with a denial, for the model.
	Feedback string `json:"feedback,omitempty"`
	// Client names the MCP client (its clientInfo name and version, the
	// session's mcp_client setting) that answered, for a decision whose
	// source is mcp_elicitation.
	Client string `json:"client,omitempty"`
}

// MCPClientSetting is the session setting in which docket mcp-server
// records the MCP client (its clientInfo name and version).
const MCPClientSetting = "mcp_client"

// Request is one approval request that went out for the call.
type Request struct {
	Seq    uint64              `json:"seq"`
	Phase  events.Phase        `json:"phase"`
	Kind   events.ApprovalKind `json:"kind"`
	Reason string              `json:"reason,omitempty"`
	At     string              `json:"at"`
}

// Sandbox is what restricted one run: the plan's mode, the layers the
// sandbox reported enforced, and whether the network was reachable.
type Sandbox struct {
	Mode    events.SandboxMode `json:"mode"`
	Layers  []string           `json:"layers"`
	Network bool               `json:"network"`
	// Egress says the run's network went only through the session's
	// egress proxy; LocalBinding that it could still bind TCP ports on
	// its own loopback (allow_local_binding).
	Egress       bool `json:"egress_proxy,omitempty"`
	LocalBinding bool `json:"local_binding,omitempty"`
	// InForce says, for each reported layer, what it stops; Missing, for
	// each layer the plan wanted but the run did not get, what that cost
	// (sandbox.Explain). Both are empty until the run reported its layers.
	InForce []layers.Line `json:"in_force,omitempty"`
	Missing []layers.Line `json:"missing,omitempty"`
	// Limits says, for each resource limit the run was under, how much and
	// what held it.
	Limits []layers.Line `json:"limits,omitempty"`
}

// Attempt is one execution of the call: its write-ahead record and, when
// recorded, its outcome.
type Attempt struct {
	Attempt      int                    `json:"attempt"`
	Seq          uint64                 `json:"seq,omitempty"`
	At           string                 `json:"at,omitempty"`
	Sandbox      *Sandbox               `json:"sandbox,omitempty"`
	OutcomeSeq   uint64                 `json:"outcome_seq,omitempty"`
	ExitCode     *int                   `json:"exit_code,omitempty"`
	Signal       string                 `json:"signal,omitempty"`
	TimedOut     bool                   `json:"timed_out,omitempty"`
	DurationMs   int64                  `json:"duration_ms,omitempty"`
	Denial       *events.DenialEvidence `json:"denial,omitempty"`
	Error        string                 `json:"error,omitempty"`
	SandboxError string                 `json:"sandbox_error,omitempty"`
	// Killed names the resource limit that ended the command.
	Killed string `json:"killed,omitempty"`
	// Fallbacks are the stronger sandbox setups refused before the command
	// existed, each "what was refused: why".
	Fallbacks []string `json:"fallbacks,omitempty"`
	// limits are the plan's resource limits, for the outcome's words.
	limits events.ResourceLimits
}

// Violation is a breach of a state-machine invariant the journal shows.
type Violation struct {
	CallID  string `json:"call_id"`
	Seq     uint64 `json:"seq"`
	Message string `json:"message"`
}

// Damage says what of a damaged journal could not be read. The audit
// covers every record that could: Read of the Last records the journal
// says it had; Unread lists the runs of seqs it could not read and why.
type Damage struct {
	// LastGoodSeq is the last seq before the first unreadable one.
	LastGoodSeq uint64 `json:"last_good_seq"`
	Error       string `json:"error"`
	Read        int    `json:"records_read"`
	Last        uint64 `json:"last_seq"`
	// Unread is empty when every record was salvaged past the damage.
	Unread []journal.Gap `json:"unread,omitempty"`
}

// Incomplete reports whether some records could not be read, so that the
// audit cannot vouch for what they held.
func (d *Damage) Incomplete() bool { return d != nil && len(d.Unread) > 0 }

// Parent names the session and call that started a subagent.
type Parent struct {
	SessionID string `json:"session_id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
}
