package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/openai"
	"github.com/docket-engine/docket/engine/model/retry"
	"github.com/docket-engine/docket/events"
)

// serve starts a fake provider; handle gets the 1-based request number.
func serve(t *testing.T, path string, handle func(w http.ResponseWriter, r *http.Request, n int)) (*httptest.Server, *hits) {
	t.Helper()
	h := &hits{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := h.add(r, body)
		if r.Method != http.MethodPost || r.URL.Path != path {
			t.Errorf("request %d: %s %s, want POST %s", n, r.Method, r.URL.Path, path)
			http.NotFound(w, r)
			return
		}
		handle(w, r, n)
	}))
	t.Cleanup(srv.Close)
	return srv, h
}

// sleeper records the waits the retry policy asks for instead of sleeping.
type sleeper struct{ waits []time.Duration }

func (s *sleeper) policy() retry.Policy {
	p := retry.Default()
	p.Rand = func() float64 { return 1 } // +50 %: deterministic
	p.Sleep = func(ctx context.Context, d time.Duration) error {
		s.waits = append(s.waits, d)
		return ctx.Err()
	}
	return p
}

// newProvider builds a provider against srv with fast, recorded retries.
func newProvider(t *testing.T, srv *httptest.Server, wire string, mut func(*openai.ProviderConfig), opts ...openai.Option) (*openai.Provider, *sleeper) {
	t.Helper()
	s := &sleeper{}
	cfg := openai.ProviderConfig{Name: "fake", BaseURL: srv.URL + "/v1", EnvKey: "FAKE_KEY", WireAPI: wire, Model: "test-model"}
	if mut != nil {
		mut(&cfg)
	}
	env := map[string]string{"FAKE_KEY": "sk-test"}
	all := append([]openai.Option{
		openai.WithHTTPClient(srv.Client()),
		openai.WithGetenv(func(k string) string { return env[k] }),
		openai.WithRetryPolicy(s.policy()),
	}, opts...)
	p, err := openai.New(cfg, all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p, s
}

var toolSpecs = []model.ToolSpec{
	{Name: "shell", Description: "Run a command.", Kind: model.ToolFunction,
		Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"]}`)},
	{Name: "apply_patch", Description: "Edit files with a patch.", Kind: model.ToolCustom},
}

func baseRequest() model.Request {
	return model.Request{
		Instructions:      "Be brief.",
		Items:             []events.Item{{Type: events.ItemMessage, Role: "user", Text: "list files"}},
		Tools:             toolSpecs,
		ParallelToolCalls: true,
	}
}

// split cuts s into n-byte pieces, as a model streams arguments.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

const shellArgs = `{"command":["bash","-lc","ls -la"],"workdir":"."}`

// fullTurn streams reasoning, text and a function call whose arguments
// arrive in many deltas; emptyOutput leaves response.completed's output
// empty, as some compatible servers do.
func fullTurn(t *testing.T, w http.ResponseWriter, emptyOutput bool) {
	s := newSSE(t, w)
	s.event("response.created", map[string]any{"response": fullResponse("resp_1", "in_progress", nil, nil)})
	s.event("response.output_item.added", map[string]any{"output_index": 0, "item": reasoningItem("rs_1")})
	s.event("response.reasoning_summary_part.added", map[string]any{"output_index": 0, "item_id": "rs_1", "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
	for _, d := range []string{"Need to ", "list files."} {
		s.event("response.reasoning_summary_text.delta", map[string]any{"output_index": 0, "item_id": "rs_1", "summary_index": 0, "delta": d})
	}
	s.event("response.output_item.done", map[string]any{"output_index": 0, "item": reasoningItem("rs_1", "Need to list files.")})
	s.event("response.output_item.added", map[string]any{"output_index": 1, "item": messageItem("msg_1", "in_progress", "")})
	for _, d := range []string{"Let me ", "look."} {
		s.event("response.output_text.delta", map[string]any{"output_index": 1, "item_id": "msg_1", "content_index": 0, "delta": d, "logprobs": []any{}})
	}
	s.event("response.output_item.done", map[string]any{"output_index": 1, "item": messageItem("msg_1", "completed", "Let me look.")})
	s.event("response.output_item.added", map[string]any{"output_index": 2, "item": functionCallItem("fc_1", "call_1", "shell", "", "in_progress")})
	for _, d := range split(shellArgs, 4) {
		s.event("response.function_call_arguments.delta", map[string]any{"output_index": 2, "item_id": "fc_1", "delta": d})
	}
	s.event("response.function_call_arguments.done", map[string]any{"output_index": 2, "item_id": "fc_1", "name": "shell", "arguments": shellArgs})
	s.event("response.output_item.done", map[string]any{"output_index": 2, "item": functionCallItem("fc_1", "call_1", "shell", shellArgs, "completed")})
	output := []any{reasoningItem("rs_1", "Need to list files."), messageItem("msg_1", "completed", "Let me look."), functionCallItem("fc_1", "call_1", "shell", shellArgs, "completed")}
	if emptyOutput {
		output = nil
	}
	s.event("response.completed", map[string]any{"response": fullResponse("resp_1", "completed", output, usageJSON(120, 100, 30, 12))})
}

func wantFullTurnItems() []events.Item {
	return []events.Item{
		{Type: events.ItemReasoning, ID: "rs_1", Text: "Need to list files."},
		{Type: events.ItemMessage, ID: "msg_1", Role: "assistant", Text: "Let me look."},
		{Type: events.ItemFunctionCall, ID: "fc_1", CallID: "call_1", Name: "shell", Arguments: shellArgs},
	}
}

func assertItems(t *testing.T, got, want []events.Item) {
	t.Helper()
	g, _ := json.MarshalIndent(got, "", "  ")
	w, _ := json.MarshalIndent(want, "", "  ")
	if string(g) != string(w) {
		t.Errorf("items:\n got %s\nwant %s", g, w)
	}
}

func TestResponsesStreamsTextReasoningAndAFunctionCallInManyDeltas(t *testing.T) {
	for _, tc := range []struct {
		name        string
		emptyOutput bool
	}{
		{"items from response.completed", false},
		{"items assembled from output_item.done when completed has no output", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) { fullTurn(t, w, tc.emptyOutput) })
			p, _ := newProvider(t, srv, "", nil)
			var deltas []model.Delta
			resp, err := p.Respond(context.Background(), baseRequest(), func(d model.Delta) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatalf("Respond: %v", err)
			}
			if resp.ID != "resp_1" || resp.Attempts != 1 {
				t.Errorf("id %q attempts %d, want resp_1 and 1", resp.ID, resp.Attempts)
			}
			assertItems(t, resp.Items, wantFullTurnItems())
			wantUsage := events.Usage{InputTokens: 120, CachedInputTokens: 100, OutputTokens: 30, ReasoningTokens: 12}
			if resp.Usage != wantUsage {
				t.Errorf("usage %+v, want %+v", resp.Usage, wantUsage)
			}
			wantDeltas := []model.Delta{{Kind: model.DeltaReasoning, Text: "Need to "}, {Kind: model.DeltaReasoning, Text: "list files."}, {Kind: model.DeltaText, Text: "Let me "}, {Kind: model.DeltaText, Text: "look."}}
			if len(deltas) != len(wantDeltas) {
				t.Fatalf("deltas %v, want %v", deltas, wantDeltas)
			}
			for i := range deltas {
				if deltas[i] != wantDeltas[i] {
					t.Errorf("delta %d = %v, want %v", i, deltas[i], wantDeltas[i])
				}
			}
			if got := h.header(0).Get("Authorization"); got != "Bearer sk-test" {
				t.Errorf("Authorization %q, want the env key", got)
			}
			var body map[string]any
			if err := json.Unmarshal(h.body(0), &body); err != nil {
				t.Fatal(err)
			}
			if body["stream"] != true || body["model"] != "test-model" || body["instructions"] != "Be brief." {
				t.Errorf("request body: stream=%v model=%v instructions=%v", body["stream"], body["model"], body["instructions"])
			}
		})
	}
}

func TestResponsesCustomToolCallArrivesWhole(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"
	srv, _ := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		s := newSSE(t, w)
		s.event("response.created", map[string]any{"response": fullResponse("resp_2", "in_progress", nil, nil)})
		s.event("response.output_item.added", map[string]any{"output_index": 0, "item": customCallItem("ctc_1", "call_p", "apply_patch", "")})
		for _, d := range split(patch, 7) {
			s.event("response.custom_tool_call_input.delta", map[string]any{"output_index": 0, "item_id": "ctc_1", "delta": d})
		}
		s.event("response.custom_tool_call_input.done", map[string]any{"output_index": 0, "item_id": "ctc_1", "input": patch})
		s.event("response.output_item.done", map[string]any{"output_index": 0, "item": customCallItem("ctc_1", "call_p", "apply_patch", patch)})
		s.event("response.completed", map[string]any{"response": fullResponse("resp_2", "completed", []any{customCallItem("ctc_1", "call_p", "apply_patch", patch)}, usageJSON(10, 0, 5, 0))})
	})
	p, _ := newProvider(t, srv, openai.WireResponses, nil)
	resp, err := p.Respond(context.Background(), baseRequest(), nil)
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	assertItems(t, resp.Items, []events.Item{{Type: events.ItemCustomToolCall, ID: "ctc_1", CallID: "call_p", Name: "apply_patch", Input: patch}})
}

func TestResponsesAssemblesItemsFromDeltasAlone(t *testing.T) {
	srv, _ := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		s := newSSE(t, w)
		s.event("response.output_item.added", map[string]any{"output_index": 0, "item": functionCallItem("fc_9", "call_9", "shell", "", "in_progress")})
		for _, d := range split(shellArgs, 3) {
			s.event("response.function_call_arguments.delta", map[string]any{"output_index": 0, "item_id": "fc_9", "delta": d})
		}
		s.event("response.completed", map[string]any{"response": fullResponse("resp_9", "completed", nil, nil)})
	})
	p, _ := newProvider(t, srv, "", nil)
	resp, err := p.Respond(context.Background(), baseRequest(), nil)
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	assertItems(t, resp.Items, []events.Item{{Type: events.ItemFunctionCall, ID: "fc_9", CallID: "call_9", Name: "shell", Arguments: shellArgs}})
}

// okTurn answers with one short message.
func okTurn(t *testing.T, w http.ResponseWriter) {
	s := newSSE(t, w)
	s.event("response.created", map[string]any{"response": fullResponse("resp_ok", "in_progress", nil, nil)})
	s.event("response.completed", map[string]any{"response": fullResponse("resp_ok", "completed", []any{messageItem("msg_ok", "completed", "Done.")}, usageJSON(3, 0, 1, 0))})
}

func apiError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code, "param": nil}})
}

func TestResponsesRetries(t *testing.T) {
	date := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		fail      func(w http.ResponseWriter)
		failures  int
		wantWaits []time.Duration
	}{
		{"429 with Retry-After seconds then success", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "7")
			apiError(w, 429, "requests", "rate_limit_exceeded", "Rate limit reached")
		}, 1, []time.Duration{7 * time.Second}},
		{"503 with Retry-After HTTP-date then success", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", date.Add(3*time.Second).Format(http.TimeFormat))
			apiError(w, 503, "server_error", "", "overloaded")
		}, 1, []time.Duration{3 * time.Second}},
		{"500 twice backs off with jitter then success", func(w http.ResponseWriter) {
			apiError(w, 500, "server_error", "", "boom")
		}, 2, []time.Duration{150 * time.Millisecond, 300 * time.Millisecond}},
		{"408 then success", func(w http.ResponseWriter) { apiError(w, 408, "", "", "timeout") }, 1, []time.Duration{150 * time.Millisecond}},
		{"409 then success", func(w http.ResponseWriter) { apiError(w, 409, "", "", "conflict") }, 1, []time.Duration{150 * time.Millisecond}},
		{"502 with an HTML body then success", func(w http.ResponseWriter) {
			w.WriteHeader(502)
			_, _ = io.WriteString(w, "<html>bad gateway</html>")
		}, 1, []time.Duration{150 * time.Millisecond}},
		{"response.failed with server_error then success", func(w http.ResponseWriter) {
			s := newSSE(t, w)
			r := fullResponse("resp_f", "failed", nil, nil)
			r["error"] = map[string]any{"code": "server_error", "message": "The model failed."}
			s.event("response.failed", map[string]any{"response": r})
		}, 1, []time.Duration{150 * time.Millisecond}},
		{"error event then success", func(w http.ResponseWriter) {
			s := newSSE(t, w)
			s.event("error", map[string]any{"code": "server_error", "message": "oops", "param": nil})
		}, 1, []time.Duration{150 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
				if n <= tc.failures {
					tc.fail(w)
					return
				}
				okTurn(t, w)
			})
			p, s := newProvider(t, srv, "", nil, openai.WithClock(func() time.Time { return date }))
			resp, err := p.Respond(context.Background(), baseRequest(), nil)
			if err != nil {
				t.Fatalf("Respond: %v", err)
			}
			if resp.Attempts != tc.failures+1 || h.count() != tc.failures+1 {
				t.Errorf("attempts %d, requests %d, want %d", resp.Attempts, h.count(), tc.failures+1)
			}
			if len(s.waits) != len(tc.wantWaits) {
				t.Fatalf("waits %v, want %v", s.waits, tc.wantWaits)
			}
			for i := range s.waits {
				if s.waits[i] != tc.wantWaits[i] {
					t.Errorf("wait %d = %v, want %v", i, s.waits[i], tc.wantWaits[i])
				}
			}
			assertItems(t, resp.Items, []events.Item{{Type: events.ItemMessage, ID: "msg_ok", Role: "assistant", Text: "Done."}})
		})
	}
}

func TestResponses503StormExhaustsRetries(t *testing.T) {
	srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		apiError(w, 503, "server_error", "", "The server is overloaded.")
	})
	p, s := newProvider(t, srv, "", nil)
	_, err := p.Respond(context.Background(), baseRequest(), nil)
	var ex *retry.ExhaustedError
	if !errors.As(err, &ex) || ex.Attempts != 3 {
		t.Fatalf("err %v, want ExhaustedError after 3 attempts", err)
	}
	var api *openai.APIError
	if !errors.As(err, &api) || api.StatusCode != 503 || !strings.Contains(err.Error(), "The server is overloaded.") {
		t.Errorf("err %v: want the provider's 503 message", err)
	}
	if h.count() != 3 || len(s.waits) != 2 {
		t.Errorf("requests %d waits %v, want 3 requests and 2 waits", h.count(), s.waits)
	}
}

func TestResponsesRequestMaxRetriesIsHonoured(t *testing.T) {
	srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		apiError(w, 500, "server_error", "", "no")
	})
	zero := 0
	p, _ := newProvider(t, srv, "", func(c *openai.ProviderConfig) { c.RequestMaxRetries = &zero })
	if _, err := p.Respond(context.Background(), baseRequest(), nil); err == nil {
		t.Fatal("want an error")
	}
	if h.count() != 1 {
		t.Errorf("requests %d, want 1 with request_max_retries = 0", h.count())
	}
}

func TestResponsesPermanentErrorsFailAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		typ    string
		code   string
		msg    string
	}{
		{"401 unauthorized", 401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-test."},
		{"403 forbidden", 403, "invalid_request_error", "", "Project does not have access to model test-model."},
		{"400 bad request", 400, "invalid_request_error", "", "Invalid value for 'input'."},
		{"429 insufficient quota", 429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Retry-After", "1")
				apiError(w, tc.status, tc.typ, tc.code, tc.msg)
			})
			p, s := newProvider(t, srv, "", nil)
			_, err := p.Respond(context.Background(), baseRequest(), nil)
			var api *openai.APIError
			if !errors.As(err, &api) || api.StatusCode != tc.status {
				t.Fatalf("err %v, want APIError %d", err, tc.status)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %q does not carry the provider's message %q", err, tc.msg)
			}
			var ex *retry.ExhaustedError
			if errors.As(err, &ex) || h.count() != 1 || len(s.waits) != 0 {
				t.Errorf("retried: requests %d waits %v", h.count(), s.waits)
			}
		})
	}
}

func TestResponsesStreamCutMidEventIsRetried(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(w http.ResponseWriter)
	}{
		{"server ends the body inside an event", func(w http.ResponseWriter) {
			s := newSSE(t, w)
			s.event("response.created", map[string]any{"response": fullResponse("resp_c", "in_progress", nil, nil)})
			s.raw("event: response.output_text.delta\ndata: {\"type\":\"response.output_te")
		}},
		{"connection drops inside an event", func(w http.ResponseWriter) {
			s := newSSE(t, w)
			s.event("response.created", map[string]any{"response": fullResponse("resp_c", "in_progress", nil, nil)})
			s.raw("event: response.output_text.delta\ndata: {\"type\":\"response.output_te")
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			_ = conn.Close()
		}},
		{"server ends the body between events", func(w http.ResponseWriter) {
			s := newSSE(t, w)
			s.event("response.created", map[string]any{"response": fullResponse("resp_c", "in_progress", nil, nil)})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					tc.cut(w)
					return
				}
				okTurn(t, w)
			})
			p, _ := newProvider(t, srv, "", nil)
			resp, err := p.Respond(context.Background(), baseRequest(), nil)
			if err != nil {
				t.Fatalf("Respond: %v", err)
			}
			if resp.Attempts != 2 || h.count() != 2 {
				t.Errorf("attempts %d requests %d, want 2", resp.Attempts, h.count())
			}
		})
	}
}

func TestResponsesStreamCutEveryTimeReportsTruncation(t *testing.T) {
	srv, _ := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		s := newSSE(t, w)
		s.event("response.created", map[string]any{"response": fullResponse("resp_c", "in_progress", nil, nil)})
	})
	p, _ := newProvider(t, srv, "", nil)
	_, err := p.Respond(context.Background(), baseRequest(), nil)
	var se *openai.StreamError
	if !errors.As(err, &se) || se.Kind != openai.StreamTruncated {
		t.Fatalf("err %v, want a truncated StreamError", err)
	}
}

// stall sends the start of a stream and then nothing until the client leaves.
func stall(t *testing.T, w http.ResponseWriter, r *http.Request) {
	s := newSSE(t, w)
	s.event("response.created", map[string]any{"response": fullResponse("resp_s", "in_progress", nil, nil)})
	<-r.Context().Done()
}

func TestResponsesIdleStreamIsEndedAndRetried(t *testing.T) {
	srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			stall(t, w, r)
			return
		}
		okTurn(t, w)
	})
	p, _ := newProvider(t, srv, "", func(c *openai.ProviderConfig) { c.StreamIdleTimeoutMs = 1000 }) // long enough for a loaded machine to start the good stream
	resp, err := p.Respond(context.Background(), baseRequest(), nil)
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	if resp.Attempts != 2 || h.count() != 2 {
		t.Errorf("attempts %d requests %d, want 2", resp.Attempts, h.count())
	}
}

func TestResponsesIdleStreamEveryTimeReportsIdle(t *testing.T) {
	srv, _ := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) { stall(t, w, r) })
	one := 1
	p, _ := newProvider(t, srv, "", func(c *openai.ProviderConfig) { c.StreamIdleTimeoutMs = 30; c.RequestMaxRetries = &one })
	_, err := p.Respond(context.Background(), baseRequest(), nil)
	var se *openai.StreamError
	if !errors.As(err, &se) || se.Kind != openai.StreamIdle {
		t.Fatalf("err %v, want an idle StreamError", err)
	}
	var ex *retry.ExhaustedError
	if !errors.As(err, &ex) || ex.Attempts != 2 {
		t.Errorf("err %v, want 2 attempts", err)
	}
}

func TestResponsesIncompleteIsPermanent(t *testing.T) {
	srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		s := newSSE(t, w)
		resp := fullResponse("resp_i", "incomplete", nil, nil)
		resp["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
		s.event("response.incomplete", map[string]any{"response": resp})
	})
	p, _ := newProvider(t, srv, "", nil)
	_, err := p.Respond(context.Background(), baseRequest(), nil)
	var se *openai.StreamError
	if !errors.As(err, &se) || se.Kind != openai.StreamIncomplete || !strings.Contains(err.Error(), "max_output_tokens") {
		t.Fatalf("err %v, want an incomplete StreamError naming the reason", err)
	}
	if h.count() != 1 {
		t.Errorf("requests %d, want 1", h.count())
	}
}

func TestResponsesConnectionRefusedIsTransient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	s := &sleeper{}
	p, err := openai.New(openai.ProviderConfig{Name: "gone", BaseURL: "http://" + addr + "/v1", Model: "m"}, openai.WithRetryPolicy(s.policy()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Respond(context.Background(), baseRequest(), nil)
	var ex *retry.ExhaustedError
	if !errors.As(err, &ex) || ex.Attempts != 3 || len(s.waits) != 2 {
		t.Fatalf("err %v waits %v, want 3 attempts", err, s.waits)
	}
}

func TestResponsesCancelledContextIsNotRetried(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		s := newSSE(t, w)
		s.event("response.created", map[string]any{"response": fullResponse("resp_x", "in_progress", nil, nil)})
		cancel()
		<-r.Context().Done()
	})
	p, _ := newProvider(t, srv, "", nil)
	_, err := p.Respond(ctx, baseRequest(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if h.count() != 1 {
		t.Errorf("requests %d, want 1", h.count())
	}
}

func TestCredentials(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     string
		token   func() (string, error)
		envKey  string
		want    string
		wantErr error
	}{
		{"env key wins over the login token", "sk-env", func() (string, error) { return "tok-login", nil }, "FAKE_KEY", "Bearer sk-env", nil},
		{"login token when the env key is unset", "", func() (string, error) { return "tok-login", nil }, "FAKE_KEY", "Bearer tok-login", nil},
		{"no auth header for a keyless server", "", nil, "", "", nil},
		{"missing key is a clear error", "", nil, "FAKE_KEY", "", openai.ErrNoCredentials},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) { okTurn(t, w) })
			opts := []openai.Option{openai.WithGetenv(func(k string) string {
				if k == "FAKE_KEY" {
					return tc.env
				}
				return ""
			})}
			if tc.token != nil {
				opts = append(opts, openai.WithTokenSource(tc.token))
			}
			p, _ := newProvider(t, srv, "", func(c *openai.ProviderConfig) { c.EnvKey = tc.envKey }, opts...)
			_, err := p.Respond(context.Background(), baseRequest(), nil)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || h.count() != 0 {
					t.Fatalf("err %v requests %d, want %v and no request", err, h.count(), tc.wantErr)
				}
				if !strings.Contains(err.Error(), "FAKE_KEY") {
					t.Errorf("err %q does not name the variable", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Respond: %v", err)
			}
			if got := h.header(0).Get("Authorization"); got != tc.want {
				t.Errorf("Authorization %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	neg := -1
	for _, tc := range []struct {
		name string
		cfg  openai.ProviderConfig
		want string
	}{
		{"unknown wire api", openai.ProviderConfig{Name: "x", WireAPI: "grpc"}, `model_providers.x.wire_api: unknown value "grpc"`},
		{"base url without scheme", openai.ProviderConfig{Name: "x", BaseURL: "localhost:8080"}, "model_providers.x.base_url"},
		{"negative retries", openai.ProviderConfig{Name: "x", RequestMaxRetries: &neg}, "model_providers.x.request_max_retries"},
		{"negative idle timeout", openai.ProviderConfig{Name: "x", StreamIdleTimeoutMs: -5}, "model_providers.x.stream_idle_timeout_ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openai.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestNewFillsDefaults(t *testing.T) {
	p, err := openai.New(openai.ProviderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Config()
	if c.Name != "openai" || c.BaseURL != openai.DefaultBaseURL || c.WireAPI != openai.WireResponses || c.StreamIdleTimeoutMs != openai.DefaultStreamIdleTimeoutMs {
		t.Errorf("defaults not filled: %+v", c)
	}
}

func TestBadRequestItemsNameTheItem(t *testing.T) {
	srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) { okTurn(t, w) })
	for _, wire := range []string{openai.WireResponses, openai.WireChat} {
		p, _ := newProvider(t, srv, wire, nil)
		req := baseRequest()
		req.Items = append(req.Items, events.Item{Type: "telepathy"})
		_, err := p.Respond(context.Background(), req, nil)
		if err == nil || !strings.Contains(err.Error(), `item 1: unknown item type "telepathy"`) {
			t.Errorf("%s: err %v, want it to name item 1", wire, err)
		}
		req = baseRequest()
		req.Items = append(req.Items, events.Item{Type: events.ItemFunctionCall, CallID: "c1"})
		_, err = p.Respond(context.Background(), req, nil)
		if err == nil || !strings.Contains(err.Error(), "item 1 (function_call): call_id and name are required") {
			t.Errorf("%s: err %v, want it to name the missing name", wire, err)
		}
	}
	if h.count() != 0 {
		t.Errorf("bad requests reached the server %d times", h.count())
	}
}
