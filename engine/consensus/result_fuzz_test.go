package consensus

import (
	"testing"
	"unicode/utf8"
)

// FuzzAgentResultFromOutput reads any run_agent output (a journaled call
// output, possibly not the engine's JSON): the result is the named agent's,
// with a status, and an error shortened from text stays text.
func FuzzAgentResultFromOutput(f *testing.F) {
	f.Add("claude", `{"agent":"claude","status":"finished","exit_code":0,"answer":"yes"}`)
	f.Add("claude", `{"agent":"codex","status":"finished"}`)
	f.Add("claude", "")
	f.Add("claude", string(make([]byte, 299))+"é and more")
	f.Fuzz(func(t *testing.T, name, output string) {
		r := agentResultFromOutput(name, output)
		if r.Agent != name || r.Status == "" {
			t.Fatalf("output %q read as %+v", output, r)
		}
		if utf8.ValidString(output) && !utf8.ValidString(r.Error) {
			t.Fatalf("error %q is not text", r.Error)
		}
	})
}
