package hooks

import (
	"errors"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
)

// FuzzJudge feeds judge what a hostile or broken hook can control (its exit
// code, stdout and stderr): whatever it prints, judge must not panic, a
// failed hook is never an allow, an answer is one of the three decisions
// ("ask" only before the call), and the reason stays bounded.
func FuzzJudge(f *testing.F) {
	for _, s := range []struct {
		code           int
		stdout, stderr string
	}{
		{0, "", ""}, {2, "", "no pushes"}, {0, `{"decision":"deny","reason":"x"}`, ""},
		{0, `{"decision":"ask"}`, ""}, {0, `{"decision":"allow"} {"decision":"deny"}`, ""},
		{0, `{"decision":null}`, ""}, {1, `{"decision":"allow"}`, "boom"}, {0, "garbage", ""},
		{0, `{"decision":"ALLOW"}`, ""}, {0, "\xff\xfe", "\x00"},
	} {
		f.Add(s.code, s.stdout, s.stderr, false, false)
	}
	f.Fuzz(func(t *testing.T, code int, stdout, stderr string, post, truncated bool) {
		stage := events.HookPreTool
		if post {
			stage = events.HookPostTool
		}
		o := events.ExecOutcome{ExitCode: code, Stdout: stdout, Stderr: stderr, Truncated: truncated}
		d, reason, err := judge(stage, o, time.Second)
		if err != nil {
			var fl *failure
			if !errors.As(err, &fl) || d != "" {
				t.Fatalf("a failure must be a *failure with no decision: %q %v", d, err)
			}
			return
		}
		switch d {
		case events.HookAllow, events.HookDeny:
		case events.HookAsk:
			if post {
				t.Fatalf("post_tool answered ask")
			}
		default:
			t.Fatalf("decision %q", d)
		}
		if code != 0 && code != 2 {
			t.Fatalf("exit %d judged %q, not a failure", code, d)
		}
		if code == 2 && d != events.HookDeny {
			t.Fatalf("exit 2 judged %q", d)
		}
		if len(reason) > maxReason+len("…") {
			t.Fatalf("reason of %d bytes", len(reason))
		}
	})
}
