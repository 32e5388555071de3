package engine_test

import (
	"context"
	"os"
	"testing"

	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
)

// TestSandboxedHooksRunOnTheSessionsLauncher: a sandboxed hook given the
// session's launcher runs on its sandbox servers, as the session's calls
// do, and one given none starts a helper of its own. The hook tells which
// by what its PID 1 is: the server's clone of itself (argv "server":true)
// or the helper's init stage.
func TestSandboxedHooksRunOnTheSessionsLauncher(t *testing.T) {
	caps := sandbox.Probe()
	if err := caps.Check(hooks.Plan()); err != nil || !(caps.Root || caps.UserNamespaces) {
		t.Skipf("no sandbox server on this machine: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	servers := &sandbox.Servers{Binary: exe}
	t.Cleanup(func() { _ = servers.Close() })
	// The key is spelled through a variable: the script's own text is in
	// PID 1's argv too.
	script := `k=server; if tr '\0' '\n' </proc/1/cmdline | grep -q "\"$k\":true"; then echo server >&2; else echo helper >&2; fi; exit 2`
	tests := []struct {
		name     string
		launcher sandbox.Launcher
		want     string
	}{
		{name: "without a launcher a hook starts its own helper", want: "helper"},
		{name: "with the session's servers a hook runs on them", launcher: servers, want: "server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &hooks.Runner{Pre: []hooks.Spec{{Tool: "*", Command: []string{"sh", "-c", script}}}, Cwd: t.TempDir(),
				HelperPath: exe, Caps: &caps, Launcher: tt.launcher}
			vs := r.Run(context.Background(), hooks.Call{Stage: events.HookPreTool, CallID: "c1", Tool: "shell", Argv: []string{"ls"}})
			if len(vs) != 1 {
				t.Fatalf("%d verdicts, want 1", len(vs))
			}
			if v := vs[0]; v.Decision != events.HookDeny || v.Reason != tt.want || v.Sandbox != events.SandboxReadOnly {
				t.Errorf("verdict %+v, want a sandboxed deny saying %q", v, tt.want)
			}
		})
	}
}
