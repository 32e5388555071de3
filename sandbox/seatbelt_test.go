package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestSeatbeltProfileGolden(t *testing.T) {
	ww := events.SandboxPlan{
		Mode:             ModeWorkspaceWrite,
		WritableRoots:    []string{"/Users/u/project", "/tmp"},
		ReadOnlySubpaths: []string{"/Users/u/project/.git", "/Users/u/project/.docket", "/Users/u/project/.agents", "/tmp/.git"},
	}
	wwNet := ww
	wwNet.Network = true
	quoted := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{`/Users/u/we"ird\dir`}}
	tests := map[string]events.SandboxPlan{
		"read-only":               {Mode: ModeReadOnly},
		"read-only-network":       {Mode: ModeReadOnly, Network: true},
		"workspace-write":         ww,
		"workspace-write-network": wwNet,
		"workspace-write-quoting": quoted,
	}
	for name, plan := range tests {
		t.Run(name, func(t *testing.T) {
			got := SeatbeltProfile(plan)
			golden := filepath.Join("testdata", "seatbelt", name+".sb")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("profile differs from %s:\n%s", golden, got)
			}
		})
	}
}

func TestSeatbeltProfileSemantics(t *testing.T) {
	if SeatbeltProfile(events.SandboxPlan{Mode: ModeNone}) != "" {
		t.Error("mode none has a profile")
	}
	ro := SeatbeltProfile(events.SandboxPlan{Mode: ModeReadOnly, WritableRoots: []string{"/w"}})
	if strings.Contains(ro, `(subpath "/w")`) {
		t.Error("read-only mode made a root writable")
	}
	for _, want := range []string{"(deny default)", "(allow file-read*)"} {
		if !strings.Contains(ro, want) {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(ro, "network-outbound") {
		t.Error("network allowed in a plan without network")
	}
	ww := SeatbeltProfile(events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{"/tmp/w"}, ReadOnlySubpaths: []string{"/tmp/w/.git"}})
	for _, want := range []string{`(subpath "/private/tmp/w")`, `(require-not (subpath "/private/tmp/w/.git"))`, `(require-not (subpath "/tmp/w/.git"))`} {
		if !strings.Contains(ww, want) {
			t.Errorf("missing %s in\n%s", want, ww)
		}
	}
}
