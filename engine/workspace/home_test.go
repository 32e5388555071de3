package workspace

import (
	"slices"
	"testing"

	"github.com/docket-engine/docket/events"
)

func TestProtectHome(t *testing.T) {
	ww := events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/nonexistent-w", "/nonexistent-t"},
		ReadOnlySubpaths: []string{"/nonexistent-w/.git"}}
	for _, tc := range []struct {
		name, home string
		plan       events.SandboxPlan
		want       []string
	}{
		{"home under a root becomes read-only", "/nonexistent-t/h/.docket", ww,
			[]string{"/nonexistent-t/h/.docket", "/nonexistent-w/.git"}},
		{"home outside every root is left alone", "/nonexistent-home/.docket", ww, []string{"/nonexistent-w/.git"}},
		{"read-only plans have nothing to protect", "/nonexistent-t/.docket", events.SandboxPlan{Mode: "read-only"}, nil},
		{"a relative home is ignored", "rel/.docket", ww, []string{"/nonexistent-w/.git"}},
	} {
		got := ProtectHome(tc.plan, tc.home)
		if !slices.Equal(got.ReadOnlySubpaths, tc.want) {
			t.Errorf("%s: read-only subpaths %v, want %v", tc.name, got.ReadOnlySubpaths, tc.want)
		}
	}
	// The caller's slice is not changed.
	if len(ww.ReadOnlySubpaths) != 1 {
		t.Errorf("ProtectHome changed its argument: %v", ww.ReadOnlySubpaths)
	}
}
