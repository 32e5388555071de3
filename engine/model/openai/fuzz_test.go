package openai_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/openai"
	"github.com/docket-engine/docket/events"
)

// bodyTransport answers every request with one fixed event-stream body.
type bodyTransport struct{ body []byte }

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(b.body)),
		Request:    r,
	}, nil
}

func fuzzProvider(t *testing.T, wire string, body []byte) *openai.Provider {
	zero := 0
	p, err := openai.New(openai.ProviderConfig{Name: "fuzz", BaseURL: "http://127.0.0.1:1/v1", WireAPI: wire, Model: "m", RequestMaxRetries: &zero},
		openai.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzResponsesStream feeds arbitrary event streams to the Responses reader:
// it must return a response or an error, never panic or hang, and a
// response is journaled and read back as it was.
func FuzzResponsesStream(f *testing.F) {
	f.Add([]byte("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"hi\"}]}]}}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.output_item.added\",\"output_index\":3,\"item\":{\"type\":\"function_call\",\"id\":\"x\"}}\n\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"x\",\"delta\":\"{\"}\n\ndata: {\"type\":\"response.completed\",\"response\":{}}\n\n"))
	f.Add([]byte("data: {\"type\":\"error\",\"code\":\"insufficient_quota\",\"message\":\"no\"}\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"x\"}}\n\n"))
	f.Add([]byte("data: [DONE]\n\n"))
	f.Add([]byte("data: {\"type\":\"response.failed\",\"response\":{\"error\":null}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := fuzzProvider(t, openai.WireResponses, body).Respond(context.Background(), baseRequest(), nil)
		if err == nil {
			checkJournaled(t, res)
		}
	})
}

// FuzzChatStream does the same for Chat Completions chunks.
func FuzzChatStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"apply_patch\",\"arguments\":\"{\\\"input\\\":\\\"x\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":5},\"finish_reason\":null}]}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":-9223372036854775808,\"delta\":{\"tool_calls\":[{\"index\":-1}]},\"finish_reason\":\"stop\"}]}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := fuzzProvider(t, openai.WireChat, body).Respond(context.Background(), baseRequest(), nil)
		if err == nil {
			checkJournaled(t, res)
		}
	})
}

// checkJournaled fails unless res, as the engine journals it (a
// model_response record), decodes back the same.
func checkJournaled(t *testing.T, res model.Response) {
	t.Helper()
	rec, err := events.NewRecord(1, 1, "", &events.ModelResponse{TurnID: "t", Request: 1, ResponseID: res.ID, Items: res.Items, Usage: res.Usage})
	if err != nil {
		t.Fatalf("the response cannot be journaled: %v", err)
	}
	body, err := rec.Decode()
	if err != nil {
		t.Fatalf("the journaled response does not decode: %v", err)
	}
	got, ok := body.(*events.ModelResponse)
	if !ok || got.ResponseID != res.ID || len(got.Items) != len(res.Items) {
		t.Fatalf("the journal changed the response: %+v", body)
	}
	for i := range res.Items {
		a, b := res.Items[i], got.Items[i]
		if a.Type != b.Type || a.CallID != b.CallID || a.Name != b.Name || a.Arguments != b.Arguments || a.Text != b.Text {
			t.Fatalf("item %d journaled as %+v, was %+v", i, b, a)
		}
	}
}
