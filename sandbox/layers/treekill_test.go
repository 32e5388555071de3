package layers

import (
	"strings"
	"testing"
)

func TestTreeKillCaveat(t *testing.T) {
	tests := []struct {
		layer, want string
	}{
		{TreeKillPGroup, "setsid"},
		{TreeKillPrefix + "cgroup-v2", "(root) can leave"},
		{TreeKillPrefix + "cgroup-v1", "(root) can leave"},
		{Seccomp, ""},
	}
	for _, tt := range tests {
		got := TreeKillCaveat(tt.layer)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("TreeKillCaveat(%q) = %q, want it to say %q", tt.layer, got, tt.want)
		}
	}
}
