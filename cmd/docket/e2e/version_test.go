package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/docket-engine/docket/sandbox"
)

// TestVersionNamesBuildToolchainAndLandlock checks both spellings print the
// release, a commit (or says the build recorded none), the Go version and
// the Landlock ABI this kernel reports.
func TestVersionNamesBuildToolchainAndLandlock(t *testing.T) {
	t.Parallel()
	caps := sandbox.Probe()
	wantLandlock := "landlock: not available"
	if caps.LandlockABI > 0 {
		wantLandlock = fmt.Sprintf("landlock: ABI %d\n", caps.LandlockABI)
	}
	commit := regexp.MustCompile(`(?m)^commit: +([0-9a-f]{40}( \(with uncommitted changes\))?|unknown \(built without VCS information\))$`)
	for _, flag := range []string{"--version", "-V"} {
		r := docket(t, nil, flag)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", flag, r.code, r.stderr)
		}
		for _, want := range []string{"docket 0.", "go:       go1.", wantLandlock} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s: missing %q in:\n%s", flag, want, r.stdout)
			}
		}
		if !commit.MatchString(r.stdout) {
			t.Errorf("%s: no commit line in:\n%s", flag, r.stdout)
		}
	}
}
