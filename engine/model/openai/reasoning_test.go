package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/docket-engine/docket/engine/model/openai"
)

// TestReasoningSettingsReachTheRequest sends one request per wire API and
// reads the settings back from the body the server received.
func TestReasoningSettingsReachTheRequest(t *testing.T) {
	for _, tc := range []struct {
		name      string
		wire      string
		path      string
		reasoning openai.Reasoning
		want      map[string]any // top-level body fields; nil value means absent
	}{
		{"responses: effort, summary and verbosity", openai.WireResponses, "/v1/responses",
			openai.Reasoning{Effort: "high", Summary: "detailed", Verbosity: "low"},
			map[string]any{"reasoning": map[string]any{"effort": "high", "summary": "detailed"}, "text": map[string]any{"verbosity": "low"}}},
		{"responses: summary none sends no summary", openai.WireResponses, "/v1/responses",
			openai.Reasoning{Effort: "minimal", Summary: "none"},
			map[string]any{"reasoning": map[string]any{"effort": "minimal"}, "text": nil}},
		{"responses: nothing set sends nothing", openai.WireResponses, "/v1/responses",
			openai.Reasoning{}, map[string]any{"reasoning": nil, "text": nil}},
		{"chat: effort and verbosity", openai.WireChat, "/v1/chat/completions",
			openai.Reasoning{Effort: "low", Summary: "auto", Verbosity: "high"},
			map[string]any{"reasoning_effort": "low", "verbosity": "high", "reasoning": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, h := serve(t, tc.path, func(w http.ResponseWriter, r *http.Request, n int) {
				if tc.wire == openai.WireChat {
					chatTurn(t, w)
					return
				}
				okTurn(t, w)
			})
			p, _ := newProvider(t, srv, tc.wire, func(c *openai.ProviderConfig) { c.Reasoning = tc.reasoning })
			if _, err := p.Respond(context.Background(), baseRequest(), nil); err != nil {
				t.Fatalf("Respond: %v", err)
			}
			var body map[string]any
			if err := json.Unmarshal(h.body(0), &body); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				got, ok := body[k]
				if want == nil {
					if ok {
						t.Errorf("%s = %v, want it absent", k, got)
					}
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %v, want %v", k, got, want)
				}
			}
		})
	}
}
