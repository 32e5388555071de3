package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// TestProgressLineIsClearedBeforeOutput: with Progress on, the turn's start
// draws the progress line and the next notice clears it before printing;
// without Progress nothing of it appears.
func TestProgressLineIsClearedBeforeOutput(t *testing.T) {
	for _, progress := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		h := NewHuman(&stdout, &stderr, HumanOptions{Progress: progress})
		h.Notify(engine.Notice{Type: engine.NoticeTurnStarted, TurnID: "turn-1"})
		h.Notify(engine.Notice{Type: engine.NoticeCallStarted, CallID: "c1", Command: []string{"ls"}})
		h.Close()
		out := stderr.String()
		drawn := strings.Contains(out, "model working")
		if drawn != progress {
			t.Fatalf("progress %t: drawn %t:\n%q", progress, drawn, out)
		}
		if progress {
			_, after, _ := strings.Cut(out, "model working")
			if !strings.Contains(after, "\r\x1b[Kexec: ls") {
				t.Fatalf("the progress line is not cleared before the call is shown:\n%q", out)
			}
		}
	}
}

func TestHeaderNamesSessionModelPolicyAndWorkspace(t *testing.T) {
	var stdout, stderr bytes.Buffer
	h := NewHuman(&stdout, &stderr, HumanOptions{})
	h.WriteHeader(Header{SessionID: "s-1", Model: "gpt-5", Provider: "openai", ApprovalPolicy: "on-failure",
		SandboxMode: "workspace-write", Workspace: "/w", WritableRoots: []string{"/extra"}, Bypassed: true})
	for _, want := range []string{"session s-1", "gpt-5 via openai", "approval on-failure, sandbox workspace-write, network off",
		"workspace  /w (also writable: /extra)", "--dangerously-bypass-approvals-and-sandbox"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("header lacks %q:\n%s", want, stderr.String())
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("the header went to stdout: %q", stdout.String())
	}
}

// TestInterruptedCallIsSaidOnce: a call a crash interrupted is shown as
// interrupted with the reason, once, and not as an ordinary failure.
func TestInterruptedCallIsSaidOnce(t *testing.T) {
	var stdout, stderr bytes.Buffer
	h := NewHuman(&stdout, &stderr, HumanOptions{})
	h.Notify(engine.Notice{Type: engine.NoticeTransition, Transition: &events.Transition{CallID: "c1", From: "sandboxed",
		Event: "interrupt", To: "done", Cause: "crash_recovery", Reason: "found in flight after a crash; outcome unknown"}})
	h.Notify(engine.Notice{Type: engine.NoticeCallCompleted, CallID: "c1", Tool: "shell", Status: engine.StatusFailed, ExitCode: -1})
	want := "interrupted: call c1: found in flight after a crash; outcome unknown\n"
	if stderr.String() != want {
		t.Fatalf("stderr %q, want %q", stderr.String(), want)
	}
}
