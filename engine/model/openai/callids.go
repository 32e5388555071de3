package openai

import (
	"fmt"

	"github.com/docket-engine/docket/events"
)

// noCallIDPrefix starts the id the wire gives a call the model sent
// without one.
const noCallIDPrefix = "docket_no_call_id_"

// withWireCallIDs gives every call item without a call_id, and the output
// item that answers it, an id of their own for the wire. The engine refuses
// such a call and answers it with an error output that has no id either
// (the conversation keeps what the model sent, so digests and replays do
// not change); the API rejects an empty call_id, and without this one
// refused call would fail the whole request, where the scripted model
// goes on. The engine appends outputs in the order of the calls, so the
// n-th output without an id answers the n-th call without one. items is
// not modified.
func withWireCallIDs(items []events.Item) []events.Item {
	var out []events.Item
	calls, outputs := 0, 0
	for i, it := range items {
		if it.CallID != "" {
			continue
		}
		var id string
		switch it.Type {
		case events.ItemFunctionCall, events.ItemCustomToolCall:
			calls++
			id = fmt.Sprintf("%s%d", noCallIDPrefix, calls)
		case events.ItemFunctionCallOutput, events.ItemCustomToolCallOutput:
			outputs++
			id = fmt.Sprintf("%s%d", noCallIDPrefix, outputs)
		default:
			continue
		}
		if out == nil {
			out = append([]events.Item(nil), items...)
		}
		out[i].CallID = id
	}
	if out == nil {
		return items
	}
	return out
}
