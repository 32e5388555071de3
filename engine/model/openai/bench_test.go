package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/docket-engine/docket/engine/model/openai"
)

// BenchmarkResponsesStream decodes a 1,000-delta function call plus a
// 1,000-delta message, with no network in the way.
func BenchmarkResponsesStream(b *testing.B) {
	var body bytes.Buffer
	ev := func(m map[string]any) {
		data, _ := json.Marshal(m)
		fmt.Fprintf(&body, "event: %s\ndata: %s\n\n", m["type"], data)
	}
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": messageItem("msg", "in_progress", "")})
	for i := 0; i < 1000; i++ {
		ev(map[string]any{"type": "response.output_text.delta", "output_index": 0, "item_id": "msg", "content_index": 0, "delta": "word ", "logprobs": []any{}})
	}
	ev(map[string]any{"type": "response.output_item.added", "output_index": 1, "item": functionCallItem("fc", "c", "shell", "", "in_progress")})
	for i := 0; i < 1000; i++ {
		ev(map[string]any{"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc", "delta": "abcd"})
	}
	ev(map[string]any{"type": "response.completed", "response": fullResponse("r", "completed", nil, usageJSON(1, 0, 1, 0))})
	zero := 0
	p, err := openai.New(openai.ProviderConfig{Name: "bench", BaseURL: "http://127.0.0.1:1/v1", Model: "m", RequestMaxRetries: &zero},
		openai.WithHTTPClient(&http.Client{Transport: bodyTransport{body.Bytes()}}))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(body.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := p.Respond(context.Background(), baseRequest(), nil)
		if err != nil || len(resp.Items) != 2 {
			b.Fatalf("%v %d", err, len(resp.Items))
		}
	}
}
