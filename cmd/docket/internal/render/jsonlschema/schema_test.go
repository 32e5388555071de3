package jsonlschema

import (
	"errors"
	"strings"
	"testing"
)

func TestSchemaLoads(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.EventTypes()) != 15 || len(s.ItemTypes()) != 7 {
		t.Errorf("events %v items %v", s.EventTypes(), s.ItemTypes())
	}
}

func TestValidatorAcceptsAGoodStream(t *testing.T) {
	s, _ := Load()
	stream := `{"type":"thread.started","thread_id":"x"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"done"}}
{"type":"item.started","item":{"id":"item_2","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"p","receiver_thread_ids":["c"],"prompt":"go","agents_states":{"c":{"status":"running","message":null}},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_2","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"p","receiver_thread_ids":["c"],"prompt":"go","agents_states":{"c":{"status":"completed","message":"done"}},"status":"completed"}}
{"type":"item.completed","item":{"id":"item_3","type":"tool_call","tool":"nope","arguments":{"a":1},"result":null,"error":{"message":"Invalid call: unknown tool \"nope\""},"status":"failed"}}
{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0}}
`
	counts, err := s.Validate(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if counts["item.completed"] != 4 || counts["item:command_execution"] != 2 || counts["turn.completed"] != 1 ||
		counts["item:collab_tool_call"] != 2 || counts["item:tool_call"] != 1 {
		t.Errorf("counts = %v", counts)
	}
}

// TestValidatorCatchesViolations makes sure the schema check can fail.
func TestValidatorCatchesViolations(t *testing.T) {
	s, _ := Load()
	for _, bad := range []string{
		`{"type":"turn.started","extra":1}`,
		`{"type":"thread.started"}`,
		`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":"2"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1.5,"cached_input_tokens":0,"output_tokens":2}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":["ls"],"aggregated_output":"","exit_code":null,"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"done"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"out of order"}}`,
		`{"type":"item.completed","item":{"id":"x","type":"agent_message","text":"bad id"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"file_change","changes":[{"path":"a","kind":"rename"}],"status":"completed"}}`,
		`{"type":"approval.requested","call_id":"c","kind":"exec","phase":"later","command":[],"cwd":"/","reason":"","proposed_amendment":null}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"p","receiver_thread_ids":["c"],"prompt":"go","agents_states":{"c":{"status":"asleep","message":null}},"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"p","receiver_thread_ids":["c"],"prompt":"go","agents_states":{"c":"completed"},"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"tool_call","tool":"nope","arguments":null,"result":null,"status":"failed"}}`,
		`{"type":"nope"}`,
		`{"type":"turn.started"} {"type":"turn.started"}`,
		`not json`,
	} {
		_, err := s.Validate(strings.NewReader(bad + "\n"))
		var le *LineError
		if !errors.As(err, &le) || le.Line != 1 {
			t.Errorf("validator accepted %s (%v)", bad, err)
		}
	}
	if _, err := s.Validate(strings.NewReader(`{"type":"turn.started"}` + "\n" + `{"type":"item.started","item":{"id":"item_0","type":"reasoning","text":"a"}}` + "\n" + `{"type":"item.started","item":{"id":"item_0","type":"reasoning","text":"a"}}` + "\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("an item started twice: %v", err)
	}
}
