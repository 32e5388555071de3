package engine

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

func TestTheModelSeesALimitKillAsSuch(t *testing.T) {
	t.Parallel()
	for killed, want := range map[string]string{
		"memory_limit": "killed: memory limit", "cpu_limit": "killed: cpu limit", "file_size_limit": "killed: file size limit",
	} {
		o := events.ExecOutcome{ExitCode: 137, Signal: "SIGKILL", Killed: killed}
		text, ok := shapeExec(o, 0)
		if ok || !strings.Contains(text, want+"\n") || strings.Contains(text, "Killed by signal") {
			t.Errorf("%s: success=%t text=%q, want a failure saying %q", killed, ok, text, want)
		}
		if got := summarize(o); got != want {
			t.Errorf("%s: summarize = %q, want %q", killed, got, want)
		}
	}
}
