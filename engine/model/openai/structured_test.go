package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/model/openai"
	"github.com/docket-engine/docket/events"
)

// TestImagesAndOutputSchemaReachBothWires: a user message's images go out as
// input_image (Responses) or image_url parts (Chat), after the text, and an
// output schema as strict json_schema in text.format (Responses) or
// response_format (Chat); a request without them carries neither.
func TestImagesAndOutputSchemaReachBothWires(t *testing.T) {
	const img = "data:image/png;base64,iVBORw0KGgo="
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	cases := []struct {
		wire, path string
		want       []string
		reply      func(t *testing.T, w http.ResponseWriter)
	}{
		{openai.WireResponses, "/v1/responses",
			[]string{`{"text":"what is this?","type":"input_text"}`, `"type":"input_image"`, `"image_url":"` + img + `"`,
				`"text":{"format":{`, `"type":"json_schema"`, `"name":"codex_output_schema"`, `"strict":true`, `"n":{"type":"integer"}`},
			okTurn},
		{openai.WireChat, "/v1/chat/completions",
			[]string{`{"text":"what is this?","type":"text"}`, `{"image_url":{"url":"` + img + `"},"type":"image_url"}`,
				`"response_format":{`, `"type":"json_schema"`, `"name":"codex_output_schema"`, `"strict":true`},
			chatTurn},
	}
	for _, tc := range cases {
		t.Run(tc.wire, func(t *testing.T) {
			srv, h := serve(t, tc.path, func(w http.ResponseWriter, r *http.Request, n int) { tc.reply(t, w) })
			p, _ := newProvider(t, srv, tc.wire, nil)
			req := baseRequest()
			req.Items = []events.Item{{Type: events.ItemMessage, Role: "user", Text: "what is this?", Images: []string{img}}}
			req.OutputSchema = schema
			if _, err := p.Respond(context.Background(), req, nil); err != nil {
				t.Fatalf("Respond: %v", err)
			}
			if _, err := p.Respond(context.Background(), baseRequest(), nil); err != nil {
				t.Fatalf("Respond: %v", err)
			}
			with, without := string(h.body(0)), string(h.body(1))
			for _, w := range tc.want {
				if !strings.Contains(with, w) {
					t.Errorf("request lacks %s:\n%s", w, with)
				}
			}
			for _, w := range []string{"json_schema", "image"} {
				if strings.Contains(without, w) {
					t.Errorf("a plain request carries %s:\n%s", w, without)
				}
			}
		})
	}
}
