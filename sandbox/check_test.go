package sandbox

import (
	"errors"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/layers"
)

func TestCheckFailsClosedOnEachMissingLayer(t *testing.T) {
	full := Capabilities{LandlockABI: 7, Seccomp: true, Root: true}
	protected := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{"/w"}, ReadOnlySubpaths: []string{"/w/.git"}, RequireProtectedPaths: true}
	cases := []struct {
		name    string
		caps    Capabilities
		plan    events.SandboxPlan
		missing string
	}{
		{"everything there", full, protected, ""},
		{"no sandbox asked", Capabilities{}, events.SandboxPlan{Mode: ModeNone}, ""},
		{"no landlock", Capabilities{Seccomp: true, Root: true}, events.SandboxPlan{Mode: ModeReadOnly}, "landlock"},
		{"no seccomp", Capabilities{LandlockABI: 7, Root: true}, events.SandboxPlan{Mode: ModeReadOnly}, layers.Seccomp},
		{"protected paths required, no namespaces", Capabilities{LandlockABI: 7, Seccomp: true}, protected, layers.MountNS},
		{"protected paths not required, no namespaces", Capabilities{LandlockABI: 7, Seccomp: true},
			events.SandboxPlan{Mode: ModeWorkspaceWrite, ReadOnlySubpaths: []string{"/w/.git"}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.caps.Check(tc.plan)
			var ue *UnavailableError
			switch {
			case tc.missing == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.missing != "" && (!errors.As(err, &ue) || len(ue.Missing) != 1 || ue.Missing[0] != tc.missing || ue.Hint == ""):
				t.Fatalf("want %s missing with a hint, got %v", tc.missing, err)
			}
		})
	}
}
