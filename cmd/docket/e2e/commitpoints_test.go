package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/journaltest"
	"github.com/docket-engine/docket/replay"
)

// TestKillWhileTheModelThinks kills docket just before a model request is
// sent (fault point sending_request), the window the grouped commits opened
// (engine/commit.go): after an executed call, its outcome and the request
// ride on the next call's write-ahead commit. The journal on disk must show
// the call started and nothing after it; resume must interrupt it as
// "outcome unknown" and never run it again, and run every later call once.
// Before the first request the user's prompt is durable, so nothing is
// lost there at all.
func TestKillWhileTheModelThinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		point string
		// lost is the call whose outcome the kill lost ("" for none).
		lost string
		// onDisk is the last record kind the kill must leave on disk.
		onDisk events.RecordKind
	}{
		{name: "first request: the prompt is durable, nothing ran", point: "sending_request@1", onDisk: events.KindModelRequest},
		{name: "after a sandboxed call", point: "sending_request@2", lost: "c1", onDisk: events.KindExecStarted},
		{name: "after a retry run without the sandbox", point: "sending_request@3", lost: "c2", onDisk: events.KindExecStarted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrashRun(t)
			first := c.exec(t, tc.point)
			if !first.signaled {
				t.Fatalf("exec was not killed at %s (exit %d):\n%s", tc.point, first.code, first.stderr)
			}
			path := c.journalPath(t)
			before, err := journaltest.OnDisk(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(before) == 0 || before[len(before)-1].Kind != tc.onDisk {
				t.Fatalf("the kill left %s on disk, want it to end with %s", kinds(before), tc.onDisk)
			}
			if tc.lost != "" {
				if !hasKind(before, tc.lost, events.KindExecStarted) || hasOutcome(before, tc.lost) {
					t.Fatalf("want %s started and its outcome not durable; on disk: %s", tc.lost, kinds(before))
				}
			}
			time.Sleep(300 * time.Millisecond) // nothing should be running; give a stray command no chance to hide
			r := c.resume(t)
			if r.code != 0 {
				t.Fatalf("resume exited %d:\n%s", r.code, r.stderr)
			}
			after := readJournal(t, path)
			checkPrefix(t, before, after)
			checkNoRepeats(t, c.ws, after)
			checkEveryCallDone(t, after)
			for _, call := range []string{"c1", "c2", "c3"} {
				recovered := lastCause(after, call) == "crash_recovery"
				if recovered != (call == tc.lost) {
					t.Fatalf("call %s ended with cause %s; the lost call is %q", call, lastCause(after, call), tc.lost)
				}
			}
			if tc.lost != "" && !strings.Contains(outputOf(after, tc.lost), "outcome unknown") {
				t.Fatalf("the model was told %q for %s, want it to hear the outcome is unknown", outputOf(after, tc.lost), tc.lost)
			}
			if _, err := replay.VerifyFile(context.Background(), path, replay.Options{}); err != nil {
				t.Fatalf("the resumed journal does not verify-replay: %v", err)
			}
		})
	}
}

func kinds(recs []events.Record) string {
	var k []string
	for _, r := range recs {
		k = append(k, string(r.Kind))
	}
	return strings.Join(k, " ")
}

func hasKind(recs []events.Record, call string, kind events.RecordKind) bool {
	for _, r := range recs {
		if r.CallID == call && r.Kind == kind {
			return true
		}
	}
	return false
}

// hasOutcome reports whether call's last attempt has an outcome in recs.
func hasOutcome(recs []events.Record, call string) bool {
	attempt := 0
	outcomes := map[int]bool{}
	for _, r := range recs {
		if r.CallID != call {
			continue
		}
		b, _ := r.Decode()
		switch v := b.(type) {
		case *events.ExecStarted:
			attempt = v.Attempt
		case *events.ExecOutcome:
			outcomes[v.Attempt] = true
		}
	}
	return outcomes[attempt]
}

func lastCause(recs []events.Record, call string) string {
	cause := ""
	for _, r := range recs {
		if r.Kind == events.KindTransition && r.CallID == call {
			b, _ := r.Decode()
			cause = b.(*events.Transition).Cause
		}
	}
	return cause
}

func outputOf(recs []events.Record, call string) string {
	for _, r := range recs {
		if r.Kind == events.KindToolOutput && r.CallID == call {
			b, _ := r.Decode()
			return b.(*events.ToolOutput).Output
		}
	}
	return ""
}
