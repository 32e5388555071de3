package agentcli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func user(text string) model.Request {
	return model.Request{Items: []events.Item{{Type: events.ItemMessage, Role: "user", Text: text}}}
}

func TestPromptIsTheMessageOrATranscript(t *testing.T) {
	if got := Prompt(user("hi").Items); got != "hi" {
		t.Errorf("lone message: %q", got)
	}
	policyUpdate := events.Item{Type: events.ItemMessage, Role: "developer", Text: "<permissions instructions>never</permissions instructions>"}
	if got := Prompt(append([]events.Item{policyUpdate}, user("hi").Items...)); got != "hi" {
		t.Errorf("a developer message before the lone user message: %q, want it left out", got)
	}
	items := append(user("q1").Items, events.Item{Type: events.ItemMessage, Role: "assistant", Text: "a1"},
		events.Item{Type: events.ItemFunctionCall, Name: "shell"}, events.Item{Type: events.ItemMessage, Role: "user", Text: "q2"})
	got := Prompt(items)
	if !strings.Contains(got, "User:\nq1\n\nAssistant:\na1\n\nUser:\nq2") || strings.Contains(got, "shell") {
		t.Errorf("transcript: %q", got)
	}
}

func TestRespond(t *testing.T) {
	for _, tc := range []struct {
		name, body, format, answer, err string
	}{
		{"the prompt reaches it and the answer comes back", `echo "you asked: $2"`, "text", "you asked: six times seven", ""},
		{"its own env", `echo "$AGENT_KEY"`, "text", "k-123", ""},
		{"a failure says why", `echo "quota exceeded" >&2; exit 3`, "text", "", "exited 3: quota exceeded"},
		{"an error event", `echo '{"type":"result","is_error":true,"result":"bad key"}'`, "stream-json", "", "bad key"},
		{"no answer", `true`, "text", "", "gave no answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Provider{Name: "a", Command: script(t, tc.body), Args: []string{"-p", "{prompt}"}, Env: []string{"AGENT_KEY=k-123"},
				Dir: t.TempDir(), Timeout: time.Minute, Format: tc.format}
			resp, err := p.Respond(context.Background(), user("six times seven"), nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Items) != 1 || resp.Items[0].Text != tc.answer || resp.ID != "agent:a" {
				t.Errorf("response %+v, want the answer %q", resp, tc.answer)
			}
		})
	}
}

// TestRespondKillsTheProcessGroupAtTheDeadline: a CLI that never answers
// is killed with its child at the deadline, and the error says so. The
// CLI and its child are shells looping on a short sleep, not `sh -c
// 'sleep 100000'`: a shell that execs its one command became a bare
// `sleep 100000` without the marker, which alive could not see, so a
// survivor passed the test and stayed behind for a day. Whatever survives
// now fails the test and is killed when it ends.
func TestRespondKillsTheProcessGroupAtTheDeadline(t *testing.T) {
	marker := fmt.Sprintf("agentcli-deadline-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() {
		for _, pid := range alive(t, marker) {
			if n, err := strconv.Atoi(pid); err == nil {
				_ = syscall.Kill(n, syscall.SIGKILL)
			}
		}
	})
	loop := "while :; do sleep 1; done"
	p := &Provider{Name: "hang", Command: script(t, fmt.Sprintf("sh -c '%s' %s-child &\nexec sh -c '%s' %s-self\n", loop, marker, loop, marker)),
		Dir: t.TempDir(), Timeout: 300 * time.Millisecond, Format: "text"}
	_, err := p.Respond(context.Background(), user("q"), nil)
	if err == nil || !strings.Contains(err.Error(), "no answer within") || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("error %v, want the deadline", err)
	}
	// With the process group as the only mechanism the kill is sent, not
	// waited for: a loaded machine may run the dying child once more
	// before it goes. A survivor loops forever, so the bound (which only
	// turns a hang into a failure) still catches it.
	for end := time.Now().Add(30 * time.Second); len(alive(t, marker)) > 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if left := alive(t, marker); len(left) > 0 {
		t.Errorf("still running 30s after the deadline: %v", left)
	}
}

// alive lists the processes whose command line holds marker.
func alive(t *testing.T, marker string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, e.Name())
		}
	}
	return out
}
