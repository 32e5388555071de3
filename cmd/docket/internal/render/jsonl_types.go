package render

import (
	"encoding/json"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// The JSONL event and item shapes. Field names and order follow Codex's
// codex-rs/exec/src/exec_events.rs; Docket's own events come last.

// Event types.
const (
	EventThreadStarted     = "thread.started"
	EventTurnStarted       = "turn.started"
	EventTurnCompleted     = "turn.completed"
	EventTurnFailed        = "turn.failed"
	EventItemStarted       = "item.started"
	EventItemUpdated       = "item.updated"
	EventItemCompleted     = "item.completed"
	EventError             = "error"
	EventCallTransition    = "call.transition"
	EventApprovalRequested = "approval.requested"
	EventSessionParked     = "session.parked"
	EventContextWarning    = "context.warning"
	EventContextCompacted  = "context.compacted"
	// EventNetworkDecision and EventNetworkConnection are Docket's: the
	// egress proxy's journaled answer about a host and each connection it
	// allowed or refused. Codex's exec stream has no network event (its
	// network approvals are app-server requests), so both are extensions.
	EventNetworkDecision   = "network.decision"
	EventNetworkConnection = "network.connection"
)

// Item types.
const (
	ItemAgentMessage     = "agent_message"
	ItemReasoning        = "reasoning"
	ItemCommandExecution = "command_execution"
	ItemFileChange       = "file_change"
	ItemMCPToolCall      = "mcp_tool_call"
	// ItemCollabToolCall is Codex's item for its collaboration tools; a
	// spawn_agent call is one, with tool "spawn_agent".
	ItemCollabToolCall = "collab_tool_call"
	// ItemToolCall is Docket's own item for a tool call none of Codex's
	// items describes: one refused before it was understood (unknown
	// tool, bad arguments) or of a tool this renderer does not know.
	ItemToolCall = "tool_call"
)

// Codex's collab_tool_call values Docket uses.
const (
	collabSpawnAgent       = "spawn_agent"
	collabAgentRunning     = "running"
	collabAgentCompleted   = "completed"
	collabAgentErrored     = "errored"
	collabAgentInterrupted = "interrupted"
)

type threadStartedEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
}

type typeOnlyEvent struct {
	Type string `json:"type"`
}

type usageJSON struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

type turnCompletedEvent struct {
	Type  string    `json:"type"`
	Usage usageJSON `json:"usage"`
}

type messageJSON struct {
	Message string `json:"message"`
}

type turnFailedEvent struct {
	Type  string      `json:"type"`
	Error messageJSON `json:"error"`
}

type errorEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type itemEvent struct {
	Type string `json:"type"`
	Item any    `json:"item"`
}

type textItem struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Text string `json:"text"`
}

type commandItem struct {
	ID               string            `json:"id"`
	Type             string            `json:"type"`
	Command          string            `json:"command"`
	AggregatedOutput string            `json:"aggregated_output"`
	ExitCode         *int              `json:"exit_code"`
	Status           engine.CallStatus `json:"status"`
}

type fileChangeItem struct {
	ID      string              `json:"id"`
	Type    string              `json:"type"`
	Changes []engine.FileChange `json:"changes"`
	Status  engine.CallStatus   `json:"status"`
}

type mcpResultJSON struct {
	Content           []any `json:"content"`
	StructuredContent any   `json:"structured_content"`
}

// textContent is an MCP text content block.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type mcpItem struct {
	ID        string            `json:"id"`
	Type      string            `json:"type"`
	Server    string            `json:"server"`
	Tool      string            `json:"tool"`
	Arguments json.RawMessage   `json:"arguments"`
	Result    *mcpResultJSON    `json:"result"`
	Error     *messageJSON      `json:"error"`
	Status    engine.CallStatus `json:"status"`
}

// collabItem is Codex's collab_tool_call (exec_events.rs CollabToolCallItem):
// for spawn_agent, the parent session is the sender and the subagent's
// session the one receiver, whose state is in agents_states.
type collabItem struct {
	ID                string                      `json:"id"`
	Type              string                      `json:"type"`
	Tool              string                      `json:"tool"`
	SenderThreadID    string                      `json:"sender_thread_id"`
	ReceiverThreadIDs []string                    `json:"receiver_thread_ids"`
	Prompt            *string                     `json:"prompt"`
	AgentsStates      map[string]collabAgentState `json:"agents_states"`
	Status            engine.CallStatus           `json:"status"`
}

// collabAgentState is Codex's CollabAgentState: the agent's status and its
// last message (a subagent's final message, or why it failed).
type collabAgentState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// toolCallItem is Docket's tool_call item: the tool's name, the arguments
// the model sent, and for a finished call the text the model got back, as
// result or error. A Codex client skips it as an unknown item type.
type toolCallItem struct {
	ID        string            `json:"id"`
	Type      string            `json:"type"`
	Tool      string            `json:"tool"`
	Arguments json.RawMessage   `json:"arguments"`
	Result    *string           `json:"result"`
	Error     *messageJSON      `json:"error"`
	Status    engine.CallStatus `json:"status"`
}

type transitionEvent struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Seq    uint64 `json:"seq"`
	From   string `json:"from"`
	Event  string `json:"event"`
	To     string `json:"to"`
	Cause  string `json:"cause"`
	Reason string `json:"reason"`
}

type approvalEvent struct {
	Type              string              `json:"type"`
	CallID            string              `json:"call_id"`
	Kind              events.ApprovalKind `json:"kind"`
	Phase             events.Phase        `json:"phase"`
	Command           []string            `json:"command"`
	Cwd               string              `json:"cwd"`
	Reason            string              `json:"reason"`
	ProposedAmendment []string            `json:"proposed_amendment"`
}

type parkedEvent struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id"`
	CallID    string `json:"call_id"`
}

// contextEvent is context.warning: the window is nearly full.
// ContextWindow is 0 for a model of unknown window.
type contextEvent struct {
	Type          string `json:"type"`
	UsedTokens    int64  `json:"used_tokens"`
	ContextWindow int64  `json:"context_window"`
	Estimated     bool   `json:"estimated"`
}

// compactedEvent is context.compacted: the conversation was replaced by
// the model's summary; the counts are the context after it.
type compactedEvent struct {
	Type          string `json:"type"`
	UsedTokens    int64  `json:"used_tokens"`
	ContextWindow int64  `json:"context_window"`
	Estimated     bool   `json:"estimated"`
	Summary       string `json:"summary"`
}

func contextOf(n engine.Notice) contextEvent {
	ev := contextEvent{Type: EventContextWarning}
	if c := n.Context; c != nil {
		ev.UsedTokens, ev.ContextWindow, ev.Estimated = c.Used, c.Window, c.Estimated
	}
	return ev
}

func compactedOf(n engine.Notice) compactedEvent {
	c := contextOf(n)
	return compactedEvent{Type: EventContextCompacted, UsedTokens: c.UsedTokens, ContextWindow: c.ContextWindow, Estimated: c.Estimated, Summary: n.Text}
}

// networkDecisionEvent is network.decision: the answer about a host no
// rule of the permission profile covered, durable before any byte went.
type networkDecisionEvent struct {
	Type     string `json:"type"`
	CallID   string `json:"call_id"`
	Seq      uint64 `json:"seq"`
	Conn     uint64 `json:"conn"`
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Protocol string `json:"protocol"`
	Method   string `json:"method"`
	Answer   string `json:"answer"`
	// Source is who answered: user, or no_approver (the approval policy
	// never: nobody could be asked).
	Source      string `json:"source"`
	Profile     string `json:"profile"`
	RuleWritten string `json:"rule_written"`
}

// networkConnectionEvent is network.connection: one connection the proxy
// allowed or refused, with the rule or answer behind it.
type networkConnectionEvent struct {
	Type     string `json:"type"`
	CallID   string `json:"call_id"`
	Seq      uint64 `json:"seq"`
	Conn     uint64 `json:"conn"`
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Protocol string `json:"protocol"`
	Method   string `json:"method"`
	Allowed  bool   `json:"allowed"`
	Rule     string `json:"rule"`
	Addr     string `json:"addr"`
	SNI      string `json:"sni"`
	// Refusals is how many refusals a summary stands for (0: one
	// connection).
	Refusals int `json:"refusals"`
}

// networkOf is a network notice as its event; ok is false for a notice
// that carries neither record.
func networkOf(n engine.Notice) (any, bool) {
	if d := n.NetworkDecision; d != nil {
		return networkDecisionEvent{Type: EventNetworkDecision, CallID: orDefault(d.CallID, n.CallID), Seq: n.Seq, Conn: d.Conn, Host: d.Host,
			Port: d.Port, Protocol: d.Protocol, Method: d.Method, Answer: string(d.Answer), Source: string(d.Source),
			Profile: d.Profile, RuleWritten: d.RuleWritten}, true
	}
	if c := n.NetworkConnection; c != nil {
		return networkConnectionEvent{Type: EventNetworkConnection, CallID: orDefault(c.CallID, n.CallID), Seq: n.Seq, Conn: c.Conn,
			Host: c.Host, Port: c.Port, Protocol: c.Protocol, Method: c.Method, Allowed: c.Allowed, Rule: c.Rule, Addr: c.Addr, SNI: c.SNI, Refusals: c.Refusals}, true
	}
	return nil, false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
