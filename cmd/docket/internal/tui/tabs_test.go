package tui

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
)

// TestTabsAreLayoutNotEscapes: a Go code block in a message and a
// command's tab-indented output show indented, never as \t; other
// control characters are still escaped.
func TestTabsAreLayoutNotEscapes(t *testing.T) {
	m := newTestModel(newFake())
	msg := "Here:\n\n```go\nfunc f() {\n\treturn\x1b[2K\n}\n```\n"
	_, cmd := m.Update(noticesMsg{{Type: engine.NoticeMessage, Text: msg}})
	_, printed, _ := runAll(cmd)
	if len(printed) != 1 || strings.Contains(printed[0], `\t`) || !strings.Contains(printed[0], "    return") || !strings.Contains(printed[0], `\e[2K`) {
		t.Fatalf("the code block is not indented with spaces (or an escape got through): %q", printed)
	}
	m.Update(noticesMsg{{Type: engine.NoticeCallStarted, CallID: "c1", Tool: "shell", Command: []string{"gofmt", "-d", "x.go"}},
		{Type: engine.NoticeCallOutput, CallID: "c1", Text: "+\tif x {\n"}})
	if v := m.View(); strings.Contains(v, `\t`) || !strings.Contains(v, "+   if x {") {
		t.Fatalf("the output is not indented with spaces:\n%s", v)
	}
	if got := expandTabs("a\tbc\td"); got != "a   bc  d" {
		t.Errorf("expandTabs = %q", got)
	}
}
