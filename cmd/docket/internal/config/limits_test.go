package config

import (
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
)

func TestSandboxLimitsDefaultToTheSandboxsAndCanBeSet(t *testing.T) {
	c := mustLoad(t, LoadOptions{Home: homeWith(t, "")})
	if got, want := c.Sandbox.Limits(), sandbox.DefaultLimits(); got != want {
		t.Errorf("default limits %+v, want sandbox.DefaultLimits %+v", got, want)
	}
	c = mustLoad(t, LoadOptions{Home: homeWith(t, "[sandbox]\nmax_processes = 64\nmax_memory_mb = 0\nmax_cpu_seconds = 5\nmax_file_size_mb = 1\n")})
	if got, want := c.Sandbox.Limits(), (events.ResourceLimits{MaxProcesses: 64, MaxCPUSeconds: 5, MaxFileSizeMB: 1}); got != want {
		t.Errorf("configured limits %+v, want %+v (0 means no limit)", got, want)
	}
}
