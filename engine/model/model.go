// Package model defines what the engine needs from a language model: one
// request in, one whole response out, with optional streaming of deltas.
// Providers live in subpackages (script, openai).
package model

import (
	"context"
	"encoding/json"

	"github.com/docket-engine/docket/events"
)

// ToolKind is how a tool takes its input: a function tool takes JSON
// arguments, a custom tool takes free text (apply_patch is custom).
type ToolKind string

// The tool kinds.
const (
	ToolFunction ToolKind = "function"
	ToolCustom   ToolKind = "custom"
	// ToolShell and ToolApplyPatch are the Responses API's own tool types
	// ({"type":"shell"}, {"type":"apply_patch"}), whose calls come back as
	// shell_call and apply_patch_call items.
	ToolShell      ToolKind = "shell"
	ToolApplyPatch ToolKind = "apply_patch"
)

// String returns the kind's spelling.
func (k ToolKind) String() string { return string(k) }

// ToolSpec is what the model sees of a tool.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Kind        ToolKind        `json:"kind"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema, function tools
}

// Request is one call to the model: the whole conversation so far.
type Request struct {
	Model             string
	Instructions      string
	Items             []events.Item
	Tools             []ToolSpec
	ParallelToolCalls bool
	// Temperature is nil for the provider's default.
	Temperature *float64
	// OutputSchema, when set, is a JSON Schema object the final message
	// must follow (the Responses API's text.format json_schema).
	OutputSchema json.RawMessage
	// Purpose says what the request is for: a turn's (""), or a
	// compaction's, whose answer is a summary of Items (a scripted model
	// answers it from its compaction lines).
	Purpose Purpose
}

// Purpose is what a request is for.
type Purpose string

// The purposes.
const (
	PurposeTurn    Purpose = ""
	PurposeCompact Purpose = "compact"
)

// Response is the model's whole answer to one Request.
type Response struct {
	ID       string
	Items    []events.Item
	Usage    events.Usage
	Attempts int // how many HTTP attempts it took; 1 when none was retried
}

// DeltaKind is what a streamed fragment carries.
type DeltaKind string

// The delta kinds.
const (
	DeltaText      DeltaKind = "text"
	DeltaReasoning DeltaKind = "reasoning"
)

// Delta is a streamed fragment of a response, for live display only: the
// engine acts on the whole Response.
type Delta struct {
	Kind DeltaKind
	Text string
}

// Model answers requests: a provider (openai), a scripted model (script),
// or replay's recorded responses.
//
// The engine makes a model_request record durable before it calls Respond,
// and records the whole Response as an input before it acts on any item, so
// Respond MUST return the whole answer: every output item, in order. It
// MUST NOT execute tool calls itself (the engine decides and runs them),
// and MUST NOT modify req or keep req.Items (a view of the session's
// conversation that later turns extend). It MUST return once ctx is done,
// with an error that wraps ctx.Err(). Retries of transient failures belong
// inside Respond (Response.Attempts counts them); an error it returns ends
// the turn and is journaled. onDelta, when non-nil, MAY be called with
// fragments for display before Respond returns, never after; the engine
// acts only on the returned Response.
type Model interface {
	Respond(ctx context.Context, req Request, onDelta func(Delta)) (Response, error)
}
