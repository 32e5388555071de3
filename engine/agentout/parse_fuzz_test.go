package agentout

import (
	"strings"
	"testing"
)

// FuzzParse feeds each format what an agent CLI can print: reading it must
// never panic, text is the output trimmed, and an answer found in a JSON
// format comes from the output (no more than its bytes, each invalid one
// replaced).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "42\n", `{"type":"result","result":"ok"}`,
		`{"type":"system","subtype":"init"}` + "\n" + `{"type":"result","subtype":"error_max_turns","is_error":true}`,
		`{"type":"item.completed","item":{"type":"agent_message","text":"hi"}}`,
		`{"type":"turn.failed","error":{"message":"boom"}}`, `{"type":"error","message":"x"}`,
		"not json\n{\"type\":", `{"type":"result","result":{"nested":1}}`,
	} {
		for _, format := range Formats() {
			f.Add(format, s)
		}
	}
	f.Fuzz(func(t *testing.T, format, out string) {
		answer, err := Parse(format, out)
		if format != StreamJSON && format != CodexJSONL {
			if err != nil || answer != strings.TrimSpace(out) {
				t.Fatalf("text: %q, %v", answer, err)
			}
			return
		}
		// JSON decoding replaces each invalid byte with U+FFFD (3 bytes).
		if len(answer) > 3*len(out) {
			t.Fatalf("answer of %d bytes from %d bytes of output", len(answer), len(out))
		}
	})
}
