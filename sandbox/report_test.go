package sandbox

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/sandbox/internal/proto"
)

func FuzzReadReport(f *testing.F) {
	f.Add("{\"kind\":\"layers\",\"layers\":[\"seccomp\"]}\n")
	f.Add("{\"kind\":\"layers\",\"layers\":[\"seccomp\"]}\n{\"kind\":\"setup_error\",\"layer\":\"mountns\",\"error\":\"x\"}\n")
	f.Add("{\"kind\":\"setup_error\",\"layer\":\"mountns\",\"error\":\"x\"}")
	f.Add("{\"kind\":\"exit\",\"code\":3}\n")
	f.Add("garbage\n{}")
	f.Fuzz(func(t *testing.T, data string) {
		// The setup pipe decides fallbacks: it must name exactly one
		// outcome, and a second line (a forgery after the layers) is bad.
		rep := readSetup(strings.NewReader(data))
		if rep.failed != nil && (rep.failed.Kind != proto.ReportSetupError || rep.layers != nil || rep.bad != nil) {
			t.Fatalf("setup report %+v from %q", rep, data)
		}
		if rep.layers != nil && strings.Count(strings.TrimSpace(data), "\n") > 0 {
			t.Fatalf("accepted layers from more than one line: %q", data)
		}
		ex := readExit(strings.NewReader(data))
		if ex.line != nil && ex.line.Kind != proto.ReportExit && ex.line.Kind != proto.ReportExecError && ex.line.Kind != proto.ReportInitError {
			t.Fatalf("exit report of kind %q", ex.line.Kind)
		}
	})
}
