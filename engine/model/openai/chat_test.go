package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/openai"
	"github.com/docket-engine/docket/engine/model/retry"
	"github.com/docket-engine/docket/events"
)

func delta(d map[string]any, finish any) map[string]any {
	return map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish, "logprobs": nil}}}
}

func toolDelta(index int, id, name, args string) map[string]any {
	tc := map[string]any{"index": index, "function": map[string]any{"arguments": args}}
	if id != "" {
		tc["id"] = id
		tc["type"] = "function"
		tc["function"].(map[string]any)["name"] = name
	}
	return delta(map[string]any{"tool_calls": []any{tc}}, nil)
}

const patchText = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"

// chatTurn streams text, then two parallel tool calls (a function and the
// custom apply_patch wrapped as {"input": ...}) whose arguments arrive in
// many interleaved deltas, a usage chunk and [DONE].
func chatTurn(t *testing.T, w http.ResponseWriter) {
	s := newSSE(t, w)
	s.chunk(delta(map[string]any{"role": "assistant", "content": ""}, nil))
	s.chunk(delta(map[string]any{"reasoning_content": "Two steps."}, nil))
	s.chunk(delta(map[string]any{"content": "On "}, nil))
	s.chunk(delta(map[string]any{"content": "it."}, nil))
	s.chunk(toolDelta(0, "call_a", "shell", ""))
	s.chunk(toolDelta(1, "call_b", "apply_patch", ""))
	patchArgs, _ := json.Marshal(map[string]string{"input": patchText})
	a, b := split(shellArgs, 5), split(string(patchArgs), 6)
	for i := 0; i < len(a) || i < len(b); i++ {
		if i < len(a) {
			s.chunk(toolDelta(0, "", "", a[i]))
		}
		if i < len(b) {
			s.chunk(toolDelta(1, "", "", b[i]))
		}
	}
	s.chunk(delta(map[string]any{}, "tool_calls"))
	s.chunk(map[string]any{"usage": map[string]any{
		"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70,
		"prompt_tokens_details":     map[string]any{"cached_tokens": 40},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 5},
	}})
	s.done()
}

func TestChatAccumulatesToolCallDeltasIntoWholeCalls(t *testing.T) {
	srv, h := serve(t, "/v1/chat/completions", func(w http.ResponseWriter, r *http.Request, n int) { chatTurn(t, w) })
	p, _ := newProvider(t, srv, openai.WireChat, nil)
	var text, reasoning string
	resp, err := p.Respond(context.Background(), baseRequest(), func(d model.Delta) {
		switch d.Kind {
		case model.DeltaText:
			text += d.Text
		case model.DeltaReasoning:
			reasoning += d.Text
		}
	})
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	assertItems(t, resp.Items, []events.Item{
		{Type: events.ItemReasoning, Text: "Two steps."},
		{Type: events.ItemMessage, Role: "assistant", Text: "On it."},
		{Type: events.ItemFunctionCall, CallID: "call_a", Name: "shell", Arguments: shellArgs},
		{Type: events.ItemCustomToolCall, CallID: "call_b", Name: "apply_patch", Input: patchText},
	})
	if text != "On it." || reasoning != "Two steps." {
		t.Errorf("deltas text %q reasoning %q", text, reasoning)
	}
	want := events.Usage{InputTokens: 50, CachedInputTokens: 40, OutputTokens: 20, ReasoningTokens: 5}
	if resp.Usage != want || resp.ID != "chatcmpl-1" || resp.Attempts != 1 {
		t.Errorf("usage %+v id %q attempts %d", resp.Usage, resp.ID, resp.Attempts)
	}
	var body struct {
		Stream        bool `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(h.body(0), &body); err != nil || !body.Stream || !body.StreamOptions.IncludeUsage {
		t.Errorf("request asks for stream=%v include_usage=%v (%v)", body.Stream, body.StreamOptions.IncludeUsage, err)
	}
}

func TestChatMalformedCustomWrapperStaysAFunctionCall(t *testing.T) {
	srv, _ := serve(t, "/v1/chat/completions", func(w http.ResponseWriter, r *http.Request, n int) {
		s := newSSE(t, w)
		s.chunk(toolDelta(0, "call_x", "apply_patch", `{"patch":`))
		s.chunk(toolDelta(0, "", "", `"oops"}`))
		s.chunk(delta(map[string]any{}, "tool_calls"))
		s.done()
	})
	p, _ := newProvider(t, srv, openai.WireChat, nil)
	resp, err := p.Respond(context.Background(), baseRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	assertItems(t, resp.Items, []events.Item{{Type: events.ItemFunctionCall, CallID: "call_x", Name: "apply_patch", Arguments: `{"patch":"oops"}`}})
}

func TestChatStreamCutBeforeFinishIsRetried(t *testing.T) {
	srv, h := serve(t, "/v1/chat/completions", func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			s := newSSE(t, w)
			s.chunk(delta(map[string]any{"content": "Half"}, nil))
			s.raw(`data: {"id":"chatcmpl-1","choi`)
			return
		}
		chatTurn(t, w)
	})
	p, _ := newProvider(t, srv, openai.WireChat, nil)
	resp, err := p.Respond(context.Background(), baseRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 2 || h.count() != 2 {
		t.Errorf("attempts %d requests %d, want 2", resp.Attempts, h.count())
	}
}

func TestChatErrorsAreClassified(t *testing.T) {
	srv, h := serve(t, "/v1/chat/completions", func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "2")
			apiError(w, 429, "requests", "rate_limit_exceeded", "slow down")
			return
		}
		apiError(w, 401, "invalid_request_error", "invalid_api_key", "bad key")
	})
	p, s := newProvider(t, srv, openai.WireChat, nil)
	_, err := p.Respond(context.Background(), baseRequest(), nil)
	var api *openai.APIError
	if !errors.As(err, &api) || api.StatusCode != 401 || api.Message != "bad key" {
		t.Fatalf("err %v, want the 401", err)
	}
	var ex *retry.ExhaustedError
	if errors.As(err, &ex) || h.count() != 2 || len(s.waits) != 1 {
		t.Errorf("requests %d waits %v, want 2 requests, one wait", h.count(), s.waits)
	}
}

func TestChatIdleStreamReportsIdle(t *testing.T) {
	srv, _ := serve(t, "/v1/chat/completions", func(w http.ResponseWriter, r *http.Request, n int) {
		s := newSSE(t, w)
		s.chunk(delta(map[string]any{"content": "x"}, nil))
		<-r.Context().Done()
	})
	zero := 0
	p, _ := newProvider(t, srv, openai.WireChat, func(c *openai.ProviderConfig) { c.StreamIdleTimeoutMs = 30; c.RequestMaxRetries = &zero })
	_, err := p.Respond(context.Background(), baseRequest(), nil)
	var se *openai.StreamError
	if !errors.As(err, &se) || se.Kind != openai.StreamIdle {
		t.Fatalf("err %v, want idle", err)
	}
}
