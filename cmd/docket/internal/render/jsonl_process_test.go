package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// A process exec_command left running is one command_execution item from
// its start to the write_stdin that saw it exit, as Codex 0.171 streams it
// (item.started, then item.completed with everything it printed), and
// write_stdin calls have no items of their own.
func TestALongLivedProcessIsOneCommandExecutionItem(t *testing.T) {
	var out bytes.Buffer
	j := NewJSONL(&out)
	cmd := []string{"bash", "-lc", "echo hi; sleep 3; echo bye"}
	j.Notify(notice(engine.Notice{Type: engine.NoticeCallStarted, CallID: "c1", Tool: engine.ExecCommandName, Command: cmd}))
	j.Notify(notice(engine.Notice{Type: engine.NoticeCallCompleted, CallID: "c1", Tool: engine.ExecCommandName, Command: cmd,
		Status: engine.StatusCompleted, Text: "hi\n", Process: &events.ProcessPoll{ID: 1000, Running: true}}))
	for i, p := range []*events.ProcessPoll{{ID: 1000, Running: true}, {ID: 1000}} {
		id := []string{"c2", "c3"}[i]
		text := []string{"", "bye\n"}[i]
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallStarted, CallID: id, Tool: engine.WriteStdinName, Command: cmd}))
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallCompleted, CallID: id, Tool: engine.WriteStdinName, Command: cmd,
			Status: engine.StatusCompleted, Text: text, Process: p}))
	}
	// A write to an unknown process shows nothing either.
	j.Notify(notice(engine.Notice{Type: engine.NoticeCallCompleted, CallID: "c4", Tool: engine.WriteStdinName, Status: engine.StatusFailed}))
	lines := decodeLines(t, out.Bytes())[1:] // after thread.started
	if len(lines) != 2 {
		t.Fatalf("%d events, want item.started and item.completed:\n%s", len(lines), out.String())
	}
	start, end := lines[0], lines[1]
	if start.Type != EventItemStarted || end.Type != EventItemCompleted || start.Item.ID != end.Item.ID || !strings.Contains(out.String(), `"type":"command_execution"`) {
		t.Fatalf("events:\n%s", out.String())
	}
	if end.Item.AggregatedOutput != "hi\nbye\n" || !strings.Contains(out.String(), `"exit_code":0`) || !strings.Contains(out.String(), `"command":"bash -lc 'echo hi; sleep 3; echo bye'"`) {
		t.Fatalf("completed item:\n%s", out.String())
	}
}
