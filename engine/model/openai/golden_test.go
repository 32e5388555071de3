package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/openai"
	"github.com/docket-engine/docket/events"
)

var update = flag.Bool("update", false, "rewrite golden files")

// conversation has every item type the engine sends back.
func conversation() model.Request {
	temp := 0.2
	return model.Request{
		Model:        "gpt-test",
		Instructions: "You are a coding agent.",
		Items: []events.Item{
			{Type: events.ItemMessage, Role: "user", Text: "add hello.txt and list files"},
			{Type: events.ItemReasoning, ID: "rs_1", Text: "Patch, then list."},
			{Type: events.ItemMessage, ID: "msg_1", Role: "assistant", Text: "Adding it."},
			{Type: events.ItemCustomToolCall, ID: "ctc_1", CallID: "call_p", Name: "apply_patch", Input: patchText},
			{Type: events.ItemFunctionCall, ID: "fc_1", CallID: "call_s", Name: "shell", Arguments: shellArgs},
			{Type: events.ItemCustomToolCallOutput, CallID: "call_p", Output: "Success. Updated the following files:\nA hello.txt\n"},
			{Type: events.ItemFunctionCallOutput, CallID: "call_s", Output: `{"output":"hello.txt\n","metadata":{"exit_code":0}}`},
			{Type: events.ItemReasoning, Text: "chat-only reasoning has no id and is not sent"},
			{Type: events.ItemMessage, Role: "developer", Text: "Sandbox changed."},
		},
		Tools:             toolSpecs,
		ParallelToolCalls: true,
		Temperature:       &temp,
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, got)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("%s differs:\n got %s\nwant %s", path, pretty.Bytes(), want)
	}
}

func TestRequestBodiesMatchGolden(t *testing.T) {
	for _, tc := range []struct {
		wire, path, file string
	}{
		{openai.WireResponses, "/v1/responses", "responses_request.golden.json"},
		{openai.WireChat, "/v1/chat/completions", "chat_request.golden.json"},
	} {
		t.Run(tc.wire, func(t *testing.T) {
			srv, h := serve(t, tc.path, func(w http.ResponseWriter, r *http.Request, n int) {
				if tc.wire == openai.WireChat {
					chatTurn(t, w)
					return
				}
				okTurn(t, w)
			})
			p, _ := newProvider(t, srv, tc.wire, nil)
			if _, err := p.Respond(context.Background(), conversation(), nil); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, h.body(0))
		})
	}
}
