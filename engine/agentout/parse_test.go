package agentout

import (
	"strings"
	"testing"
)

func TestParseFindsTheFinalAnswerOfEachFormat(t *testing.T) {
	for _, tc := range []struct {
		name, format, out, answer, err string
	}{
		{"text is the whole output, trimmed", Text, "\n 42 \n", "42", ""},
		{"unknown format reads as text", "", "42", "42", ""},
		{"claude result wins over the assistant text", StreamJSON,
			`{"type":"system","subtype":"init"}` + "\n" +
				`{"type":"assistant","message":{"content":[{"type":"text","text":"thinking"},{"type":"tool_use","name":"x"}]}}` + "\n" +
				`{"type":"result","subtype":"success","is_error":false,"result":"42"}`, "42", ""},
		{"claude without a result: the assistant's text", StreamJSON,
			`{"type":"assistant","message":{"content":[{"type":"text","text":"4"}]}}` + "\n" +
				`{"type":"assistant","message":{"content":[{"type":"text","text":"2"}]}}`, "42", ""},
		{"claude is_error", StreamJSON, `{"type":"result","is_error":true,"result":"Invalid API key"}`, "", "Invalid API key"},
		{"gemini deltas joined", StreamJSON,
			`{"type":"init"}` + "\n" + `{"type":"message","role":"user","content":"q"}` + "\n" +
				`{"type":"message","role":"assistant","content":"4","delta":true}` + "\n" +
				`{"type":"message","role":"assistant","content":"2","delta":true}` + "\n" +
				`{"type":"result","status":"success"}`, "42", ""},
		{"gemini error result", StreamJSON, `{"type":"result","status":"error","error":{"message":"Quota exceeded"}}`, "", "Quota exceeded"},
		{"an error event", StreamJSON, `{"type":"error","message":"boom"}`, "", "boom"},
		{"non-JSON lines are skipped", StreamJSON, "Loaded cached credentials.\n{not json\n" + `{"type":"result","result":"42"}`, "42", ""},
		{"codex: the last agent_message", CodexJSONL,
			`{"type":"thread.started"}` + "\n" + `{"type":"item.completed","item":{"type":"agent_message","text":"first"}}` + "\n" +
				`{"type":"item.completed","item":{"type":"reasoning","text":"hmm"}}` + "\n" +
				`{"type":"item.completed","item":{"type":"agent_message","text":"42"}}` + "\n" + `{"type":"turn.completed"}`, "42", ""},
		{"codex turn.failed", CodexJSONL, `{"type":"turn.started"}` + "\n" + `{"type":"turn.failed","error":{"message":"unexpected status 401"}}`, "", "401"},
		{"codex retried stream error then an answer", CodexJSONL,
			`{"type":"error","message":"Reconnecting... 1/5"}` + "\n" + `{"type":"item.completed","item":{"type":"agent_message","text":"42"}}`, "42", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer, err := Parse(tc.format, tc.out)
			if answer != tc.answer {
				t.Errorf("answer %q, want %q", answer, tc.answer)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one saying %q", err, tc.err)
			}
		})
	}
}
