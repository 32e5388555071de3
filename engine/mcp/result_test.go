package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRenderContent(t *testing.T) {
	size := int64(3)
	tests := []struct {
		name   string
		blocks []sdk.Content
		want   string
	}{
		{"no blocks", nil, ""},
		{"text blocks joined by newlines", []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}, "a\nb"},
		{"image placeholder", []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")}}, "[image: image/png, 5 bytes]"},
		{"audio without type", []sdk.Content{&sdk.AudioContent{Data: []byte("1")}}, "[audio: unknown type, 1 bytes]"},
		{"resource link", []sdk.Content{&sdk.ResourceLink{URI: "file:///r", Name: "r", MIMEType: "text/plain", Description: "a file", Size: &size}}, "[resource link: r <file:///r>, text/plain: a file]"},
		{"embedded text resource", []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://x", Text: "hello"}}}, "[resource: mem://x]\nhello"},
		{"embedded blob resource", []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://b", MIMEType: "application/gzip", Blob: []byte("xy")}}}, "[resource: mem://b, application/gzip, 2 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderContent(tt.blocks); got != tt.want {
				t.Errorf("renderContent = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestForModelAndOutcome(t *testing.T) {
	timeout := &CallError{Server: "ev", Tool: "slow", Kind: ErrTimeout, After: 2 * time.Second}
	exited := &CallError{Server: "t", Tool: "crash", Kind: ErrServerExited, Err: &ExitError{Status: 3, Stderr: "boom"}}
	tests := []struct {
		name        string
		res         Result
		err         error
		wantText    string
		wantOK      bool
		wantTimeout bool
	}{
		{name: "text result", res: Result{Text: "hi"}, wantText: "hi", wantOK: true},
		{name: "tool error", res: Result{Text: "nope", IsError: true}, wantText: "nope", wantOK: false},
		{name: "structured only", res: Result{Structured: []byte(`{"a":1}`)}, wantText: `{"a":1}`, wantOK: true},
		{name: "empty", res: Result{}, wantText: "(no output)", wantOK: true},
		{name: "timeout", err: timeout, wantText: "timed out after 2s (tool_timeout_sec)", wantTimeout: true},
		{name: "server exited", err: exited, wantText: "MCP server t exited while tool crash was running (exit status 3; stderr: boom)"},
		{name: "other error", err: fmt.Errorf("wrapped: %w", context.Canceled), wantText: "MCP tool call failed: wrapped: context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, ok := ForModel(tt.res, tt.err)
			if !strings.Contains(text, tt.wantText) || ok != tt.wantOK {
				t.Errorf("ForModel = %q, %v; want ~%q, %v", text, ok, tt.wantText, tt.wantOK)
			}
			o := Outcome(tt.res, tt.err)
			if o.Output != text || o.IsError == ok || o.TimedOut != tt.wantTimeout || o.Structured != string(tt.res.Structured) {
				t.Errorf("Outcome = %+v; want output %q, is_error %v, timed_out %v", o, text, !ok, tt.wantTimeout)
			}
			if (tt.err != nil) != (o.Error != "") {
				t.Errorf("Outcome.Error = %q for err %v", o.Error, tt.err)
			}
		})
	}
}

func TestCallErrorUnwrapsKindAndCause(t *testing.T) {
	cause := &ExitError{Status: 1}
	err := error(&CallError{Server: "s", Tool: "t", Kind: ErrServerExited, Err: cause})
	var ee *ExitError
	if !errors.Is(err, ErrServerExited) || !errors.As(err, &ee) || ee.Status != 1 {
		t.Errorf("errors.Is/As on %v failed", err)
	}
	if !strings.Contains(err.Error(), `mcp server "s" tool "t"`) {
		t.Errorf("error %q does not name the server and tool", err)
	}
}

func TestToolSpec(t *testing.T) {
	spec := Tool{Qualified: "mcp__s__t", Description: "d"}.ToolSpec()
	if spec.Name != "mcp__s__t" || spec.Kind != "function" || string(spec.Parameters) != emptySchema {
		t.Errorf("ToolSpec = %+v", spec)
	}
}
