package tui

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
)

// A Go code block the model writes is indented with tabs; the scrollback
// shows them as indentation, never as `\t`, and so does a call's output.
func TestGoCodeBlockTabsAreIndentation(t *testing.T) {
	m := newTestModel(newFake())
	_, cmd := m.Update(noticesMsg{{Type: engine.NoticeMessage, Text: "Here:\n\n```go\nfunc f() error {\n\tif x {\n\t\treturn nil\n\t}\n}\n```\n"}})
	_, printed, _ := runAll(cmd)
	out := strings.Join(printed, "\n")
	for _, want := range []string{"    func f() error {", "        if x {", "            return nil"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("scrollback lacks %q:\n%s", want, out)
		}
	}
	m.Update(noticesMsg{{Type: engine.NoticeCallOutput, CallID: "c1", Text: "main.go:\n\tfmt.Println()\n"}})
	if v := m.View(); !strings.Contains(v, "│     fmt.Println()") {
		t.Errorf("call output's tab is not indentation:\n%s", v)
	}
	if strings.Contains(out+m.View(), `\t`) {
		t.Errorf("a tab is shown as an escape:\n%s\n%s", out, m.View())
	}
}
