package session

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/docket-engine/docket/events"
)

// TestSharedTempRootsLeaveOutTheWorkspaceAndGivenRoots: the stubs kept for
// the session are only those of /tmp and $TMPDIR; a temporary root that is
// also the workspace or a configured writable root keeps its stubs per
// call, and a relative $TMPDIR (which the plan ignores) adds nothing.
func TestSharedTempRootsLeaveOutTheWorkspaceAndGivenRoots(t *testing.T) {
	dir := t.TempDir()
	ws, tmpd := filepath.Join(dir, "ws"), filepath.Join(dir, "tmpd")
	tmp := filepath.Clean(realTmp())
	cases := []struct {
		name string
		p    events.SessionConfig
		cwd  string
		want []string
	}{
		{"/tmp and $TMPDIR", events.SessionConfig{TmpdirEnv: tmpd}, ws, []string{tmp, tmpd}},
		{"a relative $TMPDIR", events.SessionConfig{TmpdirEnv: "rel"}, ws, []string{tmp}},
		{"the workspace is $TMPDIR", events.SessionConfig{TmpdirEnv: tmpd}, tmpd, []string{tmp}},
		{"the workspace is /tmp", events.SessionConfig{TmpdirEnv: tmpd}, "/tmp", []string{tmpd}},
		{"$TMPDIR given as a writable root", events.SessionConfig{TmpdirEnv: tmpd, WritableRoots: []string{"../tmpd"}}, ws, []string{tmp}},
		{"$TMPDIR is /tmp", events.SessionConfig{TmpdirEnv: "/tmp/"}, ws, []string{tmp}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sharedTempRoots(c.p, c.cwd); !slices.Equal(got, c.want) {
				t.Errorf("sharedTempRoots = %v, want %v", got, c.want)
			}
		})
	}
}

// realTmp is /tmp as the plan resolves it.
func realTmp() string {
	if p, err := filepath.EvalSymlinks("/tmp"); err == nil {
		return p
	}
	return "/tmp"
}
