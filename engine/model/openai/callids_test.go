package openai

import (
	"testing"

	"github.com/docket-engine/docket/events"
)

func TestCallsWithoutAnIDGetOnePerPairOnTheWire(t *testing.T) {
	items := []events.Item{
		{Type: events.ItemFunctionCall, Name: "shell"},
		{Type: events.ItemFunctionCall, CallID: "ok", Name: "shell"},
		{Type: events.ItemCustomToolCall, Name: "apply_patch"},
		{Type: events.ItemFunctionCallOutput, Output: "refused"},
		{Type: events.ItemFunctionCallOutput, CallID: "ok", Output: "ran"},
		{Type: events.ItemCustomToolCallOutput, Output: "refused too"},
		{Type: events.ItemMessage, Role: "user", Text: "go on"},
	}
	got := withWireCallIDs(items)
	want := []string{"docket_no_call_id_1", "ok", "docket_no_call_id_2", "docket_no_call_id_1", "ok", "docket_no_call_id_2", ""}
	for i, w := range want {
		if got[i].CallID != w {
			t.Errorf("item %d: call_id %q, want %q", i, got[i].CallID, w)
		}
	}
	if items[0].CallID != "" || items[3].CallID != "" {
		t.Error("the conversation itself was changed")
	}
	if all := []events.Item{{Type: events.ItemMessage}}; &withWireCallIDs(all)[0] != &all[0] {
		t.Error("a conversation without empty ids was copied")
	}
}
