package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
)

// TestChatReviewsProjectHooksAtStart: a chat in a trusted project whose
// hook was never trusted shows the hook's definition and asks before the
// UI starts; yes records the trust and the hook runs on the turn's call
// (its side effect, a file outside the workspace, appears), no starts the
// session without it (the file stays absent) and records nothing.
func TestChatReviewsProjectHooksAtStart(t *testing.T) {
	bin := cliBinary(t)
	for _, tc := range []struct {
		answer string
		runs   bool
	}{{"y", true}, {"n", false}} {
		t.Run(tc.answer, func(t *testing.T) {
			ws, home, _ := answeredChatDirs(t)
			outside := t.TempDir()
			marker := filepath.Join(outside, "hook-ran")
			writeTestFile(t, filepath.Join(home, config.FileName), "[projects.'"+ws+"']\ntrust_level = 'trusted'\n")
			writeTestFile(t, filepath.Join(ws, ".docket", "gate.sh"), "cat >/dev/null\ntouch "+marker+"\nexit 0\n")
			writeTestFile(t, filepath.Join(ws, ".docket", config.FileName),
				"[[hooks.pre_tool]]\ntool = 'shell'\nname = 'gate'\nsandbox = false\ncommand = ['sh', '.docket/gate.sh']\n")
			sp := filepath.Join(outside, "script.jsonl")
			writeTestFile(t, sp, `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["true"]}}]}`+"\n"+
				`{"output":[{"type":"message","content":"Answered."}]}`+"\n")
			cmd, f, scr := startChatScreen(t, bin, 40, 160, true, "chat", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write", "--model-script", sp)
			scr.waitFor(t, "command      sh .docket/gate.sh")
			scr.waitFor(t, "Trust these hooks as shown and run them?")
			typeKeys(t, f, tc.answer+"\r")
			scr.waitFor(t, "Enter s")
			typeKeys(t, f, "hello\r")
			scr.waitFor(t, "Answered.")
			scr.waitFor(t, "Enter s")
			typeKeys(t, f, "\x03")
			waitExit(t, cmd, scr)
			if _, err := os.Stat(marker); (err == nil) != tc.runs {
				t.Errorf("answer %q: the hook ran = %v, want %v", tc.answer, err == nil, tc.runs)
			}
			if _, err := os.Stat(filepath.Join(home, config.HookTrustFile)); (err == nil) != tc.runs {
				t.Errorf("answer %q: a trust file exists = %v, want %v", tc.answer, err == nil, tc.runs)
			}
		})
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
