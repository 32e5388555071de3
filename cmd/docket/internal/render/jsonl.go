package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// Streaming limits for item.updated. Each update carries the whole output
// so far, as Codex's items do; past updateEvery bytes an update is sent
// only when the output has grown by a quarter, so a chatty command costs
// linear, not quadratic, output. Past maxAggregated the running aggregate
// stops growing; item.completed still carries the engine's capture.
const (
	updateEvery   = 64 << 10
	maxAggregated = 1 << 20
)

// JSONL is an engine.Observer that writes one JSON object per line. It is
// safe for concurrent use: lines are never interleaved.
//
// By default the stream is `codex exec --json`'s, event for event (Codex
// CLI 0.169 and 0.171): no item.updated for commands, no item for a call
// refused before it ran, a move as one update change, an error event
// before every turn.failed. With Extensions, Docket's own events and
// details are added (CLI.md, "exec --json events").
type JSONL struct {
	mu       sync.Mutex
	w        io.Writer
	ext      bool
	err      error
	started  bool
	ended    bool
	nextItem int
	calls    map[string]*openItem
	procs    map[int]*openItem // long-lived processes' open items (jsonl_process.go)
}

// JSONLOptions are the renderer's choices.
type JSONLOptions struct {
	// Extensions adds Docket's events (call.transition,
	// approval.requested, session.parked, context.warning,
	// context.compacted), item.updated with a command's output so far, an
	// item for a call refused before it ran (declined, or Docket's
	// tool_call), an error event for a refused call, a move's
	// destination as its own add change, and the egress proxy's
	// network.decision and network.connection.
	Extensions bool
}

// openItem is a tool call's item between item.started and item.completed.
type openItem struct {
	id         string
	start      engine.Notice
	output     strings.Builder
	lastUpdate int
}

// NewJSONL returns a JSONL renderer writing Codex's stream to w.
func NewJSONL(w io.Writer) *JSONL {
	return NewJSONLWith(w, JSONLOptions{})
}

// NewJSONLWith returns a JSONL renderer with the given options.
func NewJSONLWith(w io.Writer, o JSONLOptions) *JSONL {
	return &JSONL{w: w, ext: o.Extensions, calls: map[string]*openItem{}}
}

// Parked ends the stream of a turn that stopped to wait for approvals of
// the given calls: the items still open complete as failed (what they
// showed is what ran), then an error event and turn.failed say that the
// session is parked and how to go on, so that a client reading Codex's
// stream sees the turn end.
func (j *JSONL) Parked(sessionID string, calls []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.threadStarted(sessionID)
	for _, id := range slices.Sorted(maps.Keys(j.calls)) {
		it := j.calls[id]
		delete(j.calls, id)
		n := it.start
		n.ExitCode = -1
		j.emit(itemEvent{Type: EventItemCompleted, Item: callItem(n, it.id, it.output.String(), engine.StatusFailed, j.ext)})
	}
	msg := fmt.Sprintf("session %s is parked waiting for an approval of %s: answer with docket resume %s --decisions approved (or denied)",
		sessionID, strings.Join(calls, ", "), sessionID)
	j.turnFailed(msg)
}

// turnFailed ends a turn as Codex does: the error, then turn.failed.
func (j *JSONL) turnFailed(msg string) {
	if j.ended {
		return
	}
	j.ended = true
	j.emit(errorEvent{Type: EventError, Message: msg})
	j.emit(turnFailedEvent{Type: EventTurnFailed, Error: messageJSON{Message: msg}})
}

// Err returns the first error writing to the output, if any; after it the
// renderer writes nothing more.
func (j *JSONL) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// ThreadStarted emits thread.started for the session; it is also emitted
// before the first notice that carries a session id. It is emitted once.
func (j *JSONL) ThreadStarted(sessionID string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.threadStarted(sessionID)
}

// Error emits a top-level error event, for failures outside a turn.
func (j *JSONL) Error(message string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.emit(errorEvent{Type: EventError, Message: message})
}

func (j *JSONL) threadStarted(id string) {
	if j.started || id == "" {
		return
	}
	j.started = true
	j.emit(threadStartedEvent{Type: EventThreadStarted, ThreadID: id})
}

// Notify renders one notice.
func (j *JSONL) Notify(n engine.Notice) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.threadStarted(n.SessionID)
	switch n.Type {
	case engine.NoticeTurnStarted:
		j.ended = false
		j.emit(typeOnlyEvent{Type: EventTurnStarted})
	case engine.NoticeTurnCompleted:
		j.ended = true
		j.emit(turnCompletedEvent{Type: EventTurnCompleted, Usage: usageOf(n.Usage)})
	case engine.NoticeTurnFailed:
		j.turnFailed(n.Text)
	case engine.NoticeError:
		// The engine's error notices are about one refused call; Codex
		// only tells the model (CLI.md).
		if j.ext || n.CallID == "" {
			j.emit(errorEvent{Type: EventError, Message: n.Text})
		}
	case engine.NoticeMessage:
		j.emit(itemEvent{Type: EventItemCompleted, Item: textItem{ID: j.newID(), Type: ItemAgentMessage, Text: n.Text}})
	case engine.NoticeReasoning:
		if strings.TrimSpace(n.Text) != "" {
			j.emit(itemEvent{Type: EventItemCompleted, Item: textItem{ID: j.newID(), Type: ItemReasoning, Text: n.Text}})
		}
	case engine.NoticeCallStarted:
		j.callStarted(n)
	case engine.NoticeCallOutput:
		j.callOutput(n)
	case engine.NoticeCallCompleted:
		j.callCompleted(n)
	case engine.NoticeTransition:
		if tr := n.Transition; tr != nil && j.ext {
			j.emit(transitionEvent{Type: EventCallTransition, CallID: tr.CallID, Seq: n.Seq, From: tr.From,
				Event: tr.Event, To: tr.To, Cause: tr.Cause, Reason: tr.Reason})
		}
	case engine.NoticeApproval:
		if a := n.Approval; a != nil && j.ext {
			j.emit(approvalEvent{Type: EventApprovalRequested, CallID: a.CallID, Kind: a.Kind, Phase: a.Phase,
				Command: nonNil(a.Command), Cwd: a.Cwd, Reason: a.Reason, ProposedAmendment: a.ProposedAmendment})
		}
	case engine.NoticeParked:
		if j.ext {
			j.emit(parkedEvent{Type: EventSessionParked, SessionID: n.SessionID, CallID: n.CallID})
		}
	case engine.NoticeContextWarning:
		if j.ext {
			j.emit(contextOf(n))
		}
	case engine.NoticeCompacted:
		if j.ext {
			j.emit(compactedOf(n))
		}
	case engine.NoticeNetwork:
		if ev, ok := networkOf(n); ok && j.ext {
			j.emit(ev)
		}
	}
}

func (j *JSONL) newID() string {
	id := fmt.Sprintf("item_%d", j.nextItem)
	j.nextItem++
	return id
}

func (j *JSONL) callStarted(n engine.Notice) {
	if j.processStarted(n) {
		return
	}
	if it, ok := j.calls[n.CallID]; ok {
		// A second attempt (the retry without the sandbox) continues the
		// same item with fresh output.
		it.output.Reset()
		it.lastUpdate = 0
		it.start = n
		if j.ext {
			j.emit(itemEvent{Type: EventItemUpdated, Item: callItem(n, it.id, "", engine.StatusInProgress, j.ext)})
		}
		return
	}
	it := &openItem{id: j.newID(), start: n}
	j.calls[n.CallID] = it
	j.emit(itemEvent{Type: EventItemStarted, Item: callItem(n, it.id, "", engine.StatusInProgress, j.ext)})
}

func (j *JSONL) callOutput(n engine.Notice) {
	it, ok := j.calls[n.CallID]
	if !ok || kindOf(it.start) != ItemCommandExecution {
		return
	}
	if room := maxAggregated - it.output.Len(); room > 0 {
		it.output.WriteString(n.Text[:min(len(n.Text), room)])
	} else {
		return
	}
	size := it.output.Len()
	if size > updateEvery && size < it.lastUpdate+it.lastUpdate/4 && size < maxAggregated {
		return
	}
	it.lastUpdate = size
	if j.ext {
		j.emit(itemEvent{Type: EventItemUpdated, Item: callItem(it.start, it.id, it.output.String(), engine.StatusInProgress, j.ext)})
	}
}

func (j *JSONL) callCompleted(n engine.Notice) {
	if j.processCompleted(n) {
		return
	}
	id := ""
	agg := n.Text
	if it, ok := j.calls[n.CallID]; ok {
		id = it.id
		if agg == "" {
			agg = it.output.String()
		}
		delete(j.calls, n.CallID)
	} else if !j.ext && kindOf(n) != ItemCollabToolCall {
		// Refused before it ran (declined, forbidden, invalid): Codex
		// emits no item for such a call; the model is told why.
		return
	} else {
		id = j.newID()
	}
	status := n.Status
	if status == "" {
		status = engine.StatusCompleted
	}
	j.emit(itemEvent{Type: EventItemCompleted, Item: callItem(n, id, agg, status, j.ext)})
}

// kindOf tells which item a tool call is, from what the engine said the
// call does: a kind's item only when the notice carries what that item
// shows (a patch's changes, an MCP server, a command line, a subagent), so
// no call shows as an empty command; anything else is a tool_call.
func kindOf(n engine.Notice) string {
	switch {
	case n.Tool == engine.SpawnAgentName && n.Agent != nil:
		return ItemCollabToolCall
	case n.Tool == "apply_patch" && len(n.Changes) > 0:
		return ItemFileChange
	case n.Server != "":
		return ItemMCPToolCall
	case len(n.Command) > 0:
		return ItemCommandExecution
	}
	return ItemToolCall
}

// callItem builds the item for a tool call in the given status. For a
// finished MCP call, text is its result (or error) text.
func callItem(n engine.Notice, id, text string, status engine.CallStatus, ext bool) any {
	switch kindOf(n) {
	case ItemFileChange:
		if status == engine.StatusDeclined {
			status = engine.StatusFailed
		}
		changes := n.Changes
		if !ext {
			changes = withoutMoveTargets(changes)
		}
		return fileChangeItem{ID: id, Type: ItemFileChange, Changes: changes, Status: status}
	case ItemMCPToolCall:
		it := mcpItem{ID: id, Type: ItemMCPToolCall, Server: n.Server, Tool: n.MCPTool, Arguments: argumentsJSON(n.Arguments), Status: status}
		if it.Tool == "" {
			it.Tool = n.Tool
		}
		switch status {
		case engine.StatusInProgress:
		case engine.StatusCompleted:
			it.Result = &mcpResultJSON{Content: []any{textContent{Type: "text", Text: text}}}
		default:
			it.Status = engine.StatusFailed
			it.Error = &messageJSON{Message: text}
		}
		return it
	case ItemCollabToolCall:
		return collabOf(n, id, text, status)
	case ItemToolCall:
		return toolCallOf(n, id, status)
	}
	it := commandItem{ID: id, Type: ItemCommandExecution, Command: ShellJoin(n.Command), AggregatedOutput: text, Status: status}
	if status != engine.StatusInProgress && status != engine.StatusDeclined && n.ExitCode >= 0 {
		code := n.ExitCode
		it.ExitCode = &code
	}
	return it
}

// withoutMoveTargets drops a move's destination, so that the move is the
// one update of its source, as Codex shows it.
func withoutMoveTargets(changes []engine.FileChange) []engine.FileChange {
	out := make([]engine.FileChange, 0, len(changes))
	for _, c := range changes {
		if c.MovedFrom == "" {
			out = append(out, c)
		}
	}
	return out
}

// collabOf is a spawn_agent call as Codex's collab_tool_call. text is the
// subagent's final message once it finished.
func collabOf(n engine.Notice, id, text string, status engine.CallStatus) collabItem {
	a := n.Agent
	prompt := a.Prompt
	state := collabAgentState{Status: collabAgentRunning}
	switch status {
	case engine.StatusInProgress:
	case engine.StatusCompleted:
		state.Status = collabAgentCompleted
		state.Message = &text
	default:
		status = engine.StatusFailed
		state.Status = collabAgentErrored
		if strings.HasPrefix(n.Output, "Interrupted: ") {
			state.Status = collabAgentInterrupted
		}
		msg := n.Output
		state.Message = &msg
	}
	return collabItem{ID: id, Type: ItemCollabToolCall, Tool: collabSpawnAgent, SenderThreadID: n.SessionID,
		ReceiverThreadIDs: []string{a.ChildID}, Prompt: &prompt,
		AgentsStates: map[string]collabAgentState{a.ChildID: state}, Status: status}
}

// toolCallOf is a call no other item describes, with the text the model
// got back: its result, or why it failed or was refused.
func toolCallOf(n engine.Notice, id string, status engine.CallStatus) toolCallItem {
	it := toolCallItem{ID: id, Type: ItemToolCall, Tool: n.Tool, Arguments: argumentsJSON(n.Arguments), Status: status}
	switch status {
	case engine.StatusInProgress:
	case engine.StatusCompleted:
		out := n.Output
		it.Result = &out
	default:
		it.Status = engine.StatusFailed
		it.Error = &messageJSON{Message: n.Output}
	}
	return it
}

// argumentsJSON passes JSON arguments through and quotes anything else.
func argumentsJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("null")
	}
	if json.Valid([]byte(s)) {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(s)) == nil {
			return buf.Bytes()
		}
	}
	b, _ := json.Marshal(s)
	return b
}

// usageOf is Codex's usage block. The Responses API reports no cache
// writes, so cache_write_input_tokens is 0, as Codex shows it for OpenAI.
func usageOf(u events.Usage) usageJSON {
	return usageJSON{InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
		OutputTokens: u.OutputTokens, ReasoningOutputTokens: u.ReasoningTokens}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// emit writes one event as one line, in a single Write.
func (j *JSONL) emit(v any) {
	if j.err != nil {
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		// An error event of plain strings always encodes.
		_ = enc.Encode(errorEvent{Type: EventError, Message: "cannot encode event: " + err.Error()})
	}
	if _, err := j.w.Write(buf.Bytes()); err != nil {
		j.err = fmt.Errorf("write JSONL event: %w", err)
	}
}
