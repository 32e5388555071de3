package sandbox

import (
	"errors"
	"slices"
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

// The forecast follows the plan, not only its network flag: an egress
// plan gets the empty network namespace and the bridge, a plan that hides
// paths the hidden-paths layer, so that Explain finds neither missing,
// and the first line names the network as the audit does.
func TestTheForecastFollowsThePlansNetworkAndHiddenPaths(t *testing.T) {
	caps := Capabilities{LandlockABI: 7, Seccomp: true, UserNamespaces: true}
	for _, tc := range []struct {
		name      string
		plan      events.SandboxPlan
		want, not []string
		firstLine string
	}{
		{"network off", events.SandboxPlan{Mode: ModeReadOnly},
			[]string{layers.NetNS, layers.UnixSockets}, []string{layers.Egress, layers.Hidden}, "sandbox read-only, network off"},
		{"network on", events.SandboxPlan{Mode: ModeReadOnly, Network: true},
			nil, []string{layers.NetNS, layers.UnixSockets, layers.Egress}, "sandbox read-only, network on"},
		{"through the egress proxy, paths hidden", events.SandboxPlan{Mode: ModeReadOnly, Egress: true, Hidden: []string{"/w/secret"}},
			[]string{layers.NetNS, layers.UnixSockets, layers.Egress, layers.Hidden}, nil, "sandbox read-only, network through the egress proxy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := caps.Layers(tc.plan)
			for _, l := range tc.want {
				if !slices.Contains(got, l) {
					t.Errorf("forecast %v lacks %s", got, l)
				}
			}
			for _, l := range tc.not {
				if slices.Contains(got, l) {
					t.Errorf("forecast %v has %s", got, l)
				}
			}
			e := layers.Explain(tc.plan, got)
			for _, m := range e.Missing {
				if m.Layer == layers.Egress || m.Layer == layers.Hidden {
					t.Errorf("the forecast leaves %s missing: %s", m.Layer, m.Words)
				}
			}
			if lines := e.Lines(); len(lines) == 0 || lines[0] != tc.firstLine {
				t.Errorf("first line %q, want %q", lines, tc.firstLine)
			}
		})
	}
}
