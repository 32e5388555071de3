package engine

import (
	"github.com/docket-engine/docket/engine/ctxwindow"
	"github.com/docket-engine/docket/events"
)

// Notice types, one per thing a client may want to show.
const (
	NoticeTurnStarted   = "turn.started"
	NoticeTurnCompleted = "turn.completed"
	NoticeTurnFailed    = "turn.failed"
	NoticeMessage       = "message"
	NoticeReasoning     = "reasoning"
	NoticeTextDelta     = "text.delta"
	// NoticeReasoningDelta is a streamed fragment of the model's reasoning
	// summary (Text), for live display; NoticeReasoning carries the whole.
	NoticeReasoningDelta = "reasoning.delta"
	NoticeCallStarted    = "call.started"
	NoticeCallOutput     = "call.output"
	NoticeCallCompleted  = "call.completed"
	NoticeTransition     = "call.transition"
	NoticeApproval       = "approval.requested"
	NoticeParked         = "session.parked"
	NoticeError          = "error"
	// NoticeContextWarning says the context window is nearly full
	// (Context holds how full); said once until a compaction empties it.
	NoticeContextWarning = "context.warning"
	// NoticeCompacted says the conversation was replaced by the model's
	// summary (Text); Context is the window after it.
	NoticeCompacted = "context.compacted"
	// NoticeNetwork is a record of the session's egress proxy, once
	// journaled: NetworkDecision (an answer about a host no rule covered)
	// or NetworkConnection (a connection allowed or refused). CallID is
	// the call whose command asked.
	NoticeNetwork = "network"
)

// CallStatus is how far a call got, as Codex's exec events spell an
// item's status.
type CallStatus string

// Call statuses. NoticeCallCompleted carries completed, failed or declined;
// in_progress is what renderers show while the call runs.
const (
	StatusInProgress CallStatus = "in_progress"
	StatusCompleted  CallStatus = "completed"
	StatusFailed     CallStatus = "failed"
	StatusDeclined   CallStatus = "declined"
)

// String returns the status's spelling.
func (s CallStatus) String() string { return string(s) }

// Notice is one thing that happened, for a client to render. Which fields
// are set depends on Type.
type Notice struct {
	Type      string
	SessionID string
	TurnID    string
	CallID    string
	Tool      string // shell, apply_patch, or a qualified MCP name
	Command   []string
	Cwd       string
	Changes   []FileChange
	Server    string
	MCPTool   string
	Arguments string
	// Agent is the subagent a spawn_agent call starts (its session id,
	// name and prompt), on that call's started and completed notices.
	Agent *events.AgentSpawn
	// Process is, on the completed notice of exec_command or write_stdin,
	// what the call collected from its long-lived process: its session id
	// and whether it still runs.
	Process *events.ProcessPoll
	Text    string
	// Output is, on a completed notice, the text the model got back for
	// the call: for a call refused before it ran, the reason.
	Output     string
	Stream     string
	ExitCode   int
	Status     CallStatus
	Seq        uint64
	Transition *events.Transition
	Approval   *events.ApprovalRequested
	// Means says what a yes to Approval would allow (see ApprovalRequest):
	// for renderers that show the request without asking.
	Means ApprovalMeaning
	Usage events.Usage
	// Context is how full the context window is, for the context notices.
	Context *ctxwindow.Status
	// NetworkDecision and NetworkConnection are a NoticeNetwork's record
	// (one of the two is set).
	NetworkDecision   *events.NetworkDecision
	NetworkConnection *events.NetworkConnection
}

// FileChange is one file an apply_patch call touches.
type FileChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // add, delete, update
	// MovedFrom is, on the add of a move's destination, the file it moves
	// from (whose own change is an update listed before it). Codex shows
	// a move as that one update, so its renderers may leave this one out.
	MovedFrom string `json:"-"`
}

// Observer receives notices: the renderers of cmd/docket (JSONL, human),
// a client. Notices are for display; nothing is decided from them, and
// replay runs with none.
//
// Notify is called from the engine's goroutines, possibly concurrently,
// and for transitions with the engine's record lock held: an
// implementation MUST serialise as it needs, MUST NOT call back into the
// Session, and SHOULD return quickly (a slow observer slows every call).
// It MUST treat n as read-only: its pointers and slices are shared with
// the engine.
type Observer interface {
	Notify(Notice)
}

type nopObserver struct{}

func (nopObserver) Notify(Notice) {}

// ApprovalMeaning is what a yes to an approval request allows, as
// ApprovalRequest's fields of the same names say.
type ApprovalMeaning struct {
	Unsandboxed, RetryUnsandboxed, ModelJustification bool
}
