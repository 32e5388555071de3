package engine_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// expectation is what DESIGN.md section 3 says must happen to one call when
// the user approves every request.
type expectation struct {
	phases  []events.Phase // approval requests, in order
	written bool           // the call's file exists afterwards
	refused bool           // forbidden: never asked, never run
}

// expect derives the outcome from the design's rules, written out here
// independently of the code under test.
func expect(pol, mode, kind string) expectation {
	restricting := mode != "danger-full-access"
	isPatch := strings.HasPrefix(kind, "patch")
	needs, forbidden := false, false
	switch kind {
	case "safe":
	case "write-inside", "write-outside":
		needs = pol == "untrusted"
	case "escalation":
		if restricting {
			needs, forbidden = pol != "never", pol == "never"
		} else {
			needs = pol == "untrusted"
		}
	case "patch-inside":
		switch {
		case pol == "untrusted":
			needs = true
		case mode == "workspace-write", mode == "danger-full-access":
		default:
			needs, forbidden = pol != "never", pol == "never"
		}
	case "patch-outside":
		switch {
		case pol == "untrusted":
			needs = true
		case mode == "danger-full-access":
		default:
			needs, forbidden = pol != "never", pol == "never"
		}
	}
	if forbidden {
		return expectation{refused: true}
	}
	var e expectation
	if needs {
		e.phases = append(e.phases, events.PhaseInitial)
	}
	sandboxed := restricting && !(kind == "escalation" && needs)
	writes := kind != "safe"
	writable := kind == "write-inside" || kind == "patch-inside" || kind == "escalation"
	writable = writable && mode == "workspace-write"
	if !writes {
		return e
	}
	if !sandboxed || writable {
		e.written = true
		return e
	}
	// The sandbox denies the write; the retry rule decides.
	retry := pol == "on-failure" || pol == "untrusted" || (isPatch && pol == "on-request")
	if !retry {
		return e
	}
	if !needs {
		e.phases = append(e.phases, events.PhaseRetry)
	}
	e.written = true
	return e
}

func matrixCall(kind string) (item string, file string) {
	sh := func(cmd string, extra string) string {
		return fmt.Sprintf(`{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-lc",%q]%s}}`, cmd, extra)
	}
	patch := func(path string) string {
		return fmt.Sprintf(`{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: %s\n+hi\n*** End Patch\n"}`, path)
	}
	switch kind {
	case "safe":
		return `{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["ls"]}}`, ""
	case "write-inside":
		return sh("echo hi > in.txt", ""), "$WS/in.txt"
	case "write-outside":
		return sh("echo hi > $OUT/out.txt", ""), "$OUT/out.txt"
	case "escalation":
		return sh("echo hi > esc.txt", `,"sandbox_permissions":"require_escalated","justification":"needs it"`), "$WS/esc.txt"
	case "patch-inside":
		return patch("pin.txt"), "$WS/pin.txt"
	case "patch-outside":
		return patch("$OUT/pout.txt"), "$OUT/pout.txt"
	}
	panic(kind)
}

func TestApprovalMatrixFollowsTheDesign(t *testing.T) {
	t.Parallel()
	for _, pol := range []string{"untrusted", "on-failure", "on-request", "never"} {
		for _, mode := range []string{"read-only", "workspace-write", "danger-full-access"} {
			for _, kind := range []string{"safe", "write-inside", "write-outside", "escalation", "patch-inside", "patch-outside"} {
				t.Run(pol+"/"+mode+"/"+kind, func(t *testing.T) {
					t.Parallel()
					want := expect(pol, mode, kind)
					item, file := matrixCall(kind)
					f := newFixture(t, setup{approval: pol, mode: mode,
						answers: []events.ReviewDecision{events.Approved, events.Approved},
						script:  `{"output":[` + item + `]}` + "\n" + done})
					res := f.turn("go")
					if res.Status != events.TurnCompleted {
						t.Fatalf("turn %+v", res)
					}
					var phases []events.Phase
					for _, a := range f.asked() {
						phases = append(phases, a.Phase)
					}
					if !slices.Equal(phases, want.phases) {
						t.Errorf("approval requests %v, want %v (path %s)", phases, want.phases, f.path("c1"))
					}
					if st, _ := f.s.CallState("c1"); st != states.Done {
						t.Errorf("call ended in %s", st)
					}
					trs := f.transitions("c1")
					if want.refused {
						if len(trs) != 2 || trs[0].Event != string(states.Deny) || trs[0].From != string(states.WantsApproval) {
							t.Errorf("want a denial straight from wantsApproval, path %s", f.path("c1"))
						}
					}
					for _, tr := range trs {
						if tr.To == string(states.Unsandboxed) && !states.Cause(tr.Cause).JustifiesUnsandboxed() {
							t.Errorf("reached unsandboxed with cause %s", tr.Cause)
						}
					}
					if file != "" {
						p := strings.NewReplacer("$WS", f.ws, "$OUT", f.outside).Replace(file)
						if got := exists(filepath.Clean(p)); got != want.written {
							t.Errorf("file written %v, want %v (path %s)", got, want.written, f.path("c1"))
						}
					}
				})
			}
		}
	}
}
