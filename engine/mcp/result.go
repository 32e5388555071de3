package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docket-engine/docket/events"
)

// Result is what a tool call returned, in the forms the engine needs.
type Result struct {
	// Text renders the content blocks for the model: text as is, other
	// blocks as a one-line placeholder, blocks separated by newlines.
	Text string `json:"text"`
	// Structured is the result's structuredContent, if any.
	Structured json.RawMessage `json:"structured,omitempty"`
	// IsError is the tool's own report that it failed.
	IsError bool `json:"is_error,omitempty"`
	// Raw is the whole result as the server sent it (after SDK decoding).
	Raw json.RawMessage `json:"raw,omitempty"`
}

func newResult(r *sdk.CallToolResult) Result {
	out := Result{IsError: r.IsError, Text: renderContent(r.Content)}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			out.Structured = b
		}
	}
	if b, err := json.Marshal(r); err == nil {
		out.Raw = b
	}
	return out
}

// renderContent turns content blocks into text for the model.
func renderContent(blocks []sdk.Content) string {
	parts := make([]string, 0, len(blocks))
	for _, c := range blocks {
		parts = append(parts, renderBlock(c))
	}
	return strings.Join(parts, "\n")
}

func renderBlock(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.ResourceLink:
		s := fmt.Sprintf("[resource link: %s <%s>", c.Name, c.URI)
		if c.MIMEType != "" {
			s += ", " + c.MIMEType
		}
		if c.Description != "" {
			s += ": " + c.Description
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource]"
		}
		if r.Blob != nil {
			return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
		}
		return fmt.Sprintf("[resource: %s]\n%s", r.URI, r.Text)
	default:
		return fmt.Sprintf("[%T content]", c)
	}
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// ForModel shapes a call's result or failure into the output text the model
// receives and whether the call succeeded. Structured content stands in
// for the text when the tool returned no content blocks.
func ForModel(res Result, err error) (output string, success bool) {
	if err != nil {
		return failureText(err), false
	}
	text := res.Text
	if strings.TrimSpace(text) == "" && len(res.Structured) > 0 {
		text = string(res.Structured)
	}
	if text == "" {
		text = "(no output)"
	}
	return text, !res.IsError
}

func failureText(err error) string {
	var ce *CallError
	if !errors.As(err, &ce) {
		return "MCP tool call failed: " + err.Error()
	}
	switch {
	case errors.Is(err, ErrTimeout):
		return fmt.Sprintf("MCP tool %s (server %s) timed out after %s (tool_timeout_sec); the call was cancelled.",
			ce.Tool, ce.Server, ce.After)
	case errors.Is(err, ErrServerExited):
		return fmt.Sprintf("MCP server %s exited while tool %s was running (%v); the result is unknown. The server restarts on the next call.",
			ce.Server, ce.Tool, ce.Err)
	}
	return "MCP tool call failed: " + err.Error()
}

// Outcome fills the MCP fields of the journal's exec outcome from a call's
// result or failure, so that replay needs no server: Output is what the
// model is sent, IsError is set for any failure. The engine adds the call
// id, attempt and duration.
func Outcome(res Result, err error) events.ExecOutcome {
	out, ok := ForModel(res, err)
	o := events.ExecOutcome{
		Output:     out,
		Structured: string(res.Structured),
		IsError:    !ok,
		TimedOut:   errors.Is(err, ErrTimeout),
	}
	if err != nil {
		o.Error = err.Error()
	}
	return o
}
