package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
)

// fakeHelper writes a shell script that stands in front of the real helper
// (this test binary): for the setups that match pass (a shell pattern on the
// spec argument) it runs the real helper, for the others it runs refuse.
func fakeHelper(t *testing.T, pass, refuse string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-helper")
	script := "#!/bin/sh\ncase \"$2\" in " + pass + ") exec '" + testBinary(t) + "' \"$@\";; esac\n" + refuse + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFallbackBeforeTheCommandIsRecorded: a mount namespace refused on the
// setup pipe, before the command exists, makes Run try the next setup, and
// the outcome says what was refused and why.
func TestFallbackBeforeTheCommandIsRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	if !caps.Root || !caps.UserNamespaces {
		t.Skip("needs root with user namespaces to have two setups to choose from")
	}
	helper := fakeHelper(t, `*'"user":true'*|*'"init":true'*`,
		`echo '{"kind":"setup_error","layer":"mountns","error":"refused for the test"}' >&3; exit 125`)
	f := newFixture(t)
	var runs int
	out, err := Run(context.Background(), Request{Argv: []string{"sh", "-c", "echo ran"}, Cwd: f.W, Plan: f.plan(vWW),
		HelperPath: helper, Caps: &caps, Timeout: time.Minute,
		OnOutput: func(_ string, b []byte) { runs += strings.Count(string(b), "ran") }})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := "namespaces mountns+pidns+netns+ipcns+utsns: mountns: refused for the test"
	if !slices.Equal(out.Fallbacks, []string{want}) {
		t.Errorf("fallbacks = %q, want [%q]", out.Fallbacks, want)
	}
	if runs != 1 || !slices.Contains(out.Layers, layers.UserNS) {
		t.Errorf("runs = %d, layers = %v: want one run in a user namespace", runs, out.Layers)
	}
}

// TestSetupPipeSpeaksOnce: anything but exactly one known line on the
// setup pipe is an error for the call, never a fallback, and a failure
// after the layers were reported is never retried.
func TestSetupPipeSpeaksOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	if !caps.Namespaces() {
		t.Skip("needs namespaces for a fallback to be possible at all")
	}
	tests := []struct {
		name, refuse string
	}{
		{"a setup error after the layers",
			`printf '%s\n%s\n' '{"kind":"layers","layers":["seccomp"]}' '{"kind":"setup_error","layer":"mountns","error":"x"}' >&3; exit 125`},
		{"an unknown line", `echo '{"kind":"retry"}' >&3; exit 125`},
		{"a line that does not parse", `echo 'mountns failed' >&3; exit 125`},
		{"silence", `exit 125`},
		{"layers, then death", `echo '{"kind":"layers","layers":["seccomp"]}' >&3; exit 125`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			helper := fakeHelper(t, "__never__", tt.refuse)
			f := newFixture(t)
			c := caps
			out, err := Run(context.Background(), Request{Argv: []string{"true"}, Cwd: f.W, Plan: f.plan(vRO),
				HelperPath: helper, Caps: &c, Timeout: time.Minute})
			if len(out.Fallbacks) != 0 {
				t.Errorf("fell back: %q", out.Fallbacks)
			}
			if tt.name == "layers, then death" {
				// The command may have started: exit 125 is its outcome.
				if err != nil || out.ExitCode != proto.ExitSetup {
					t.Errorf("err=%v exit=%d, want the outcome exit %d", err, out.ExitCode, proto.ExitSetup)
				}
				return
			}
			if err == nil {
				t.Errorf("accepted: %+v", out)
			}
		})
	}
}

// TestInitStageRefusesToRunUnconfined: a spec that asks for the init stage
// without the first stage having confined anything (capabilities held, not
// PID 1, no no_new_privs, no seccomp) must not run the command.
func TestInitStageRefusesToRunUnconfined(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	spec := fmt.Sprintf(`{"v":%d,"seccomp":"AAAAAAAAAAA=","mode":"read-only","ns":{"pid":true},"init":true,"layers":["seccomp"],"cwd":"/","path":"/usr/bin/touch"}`, proto.Version)
	cmd := exec.Command(testBinary(t), HelperArg, spec, "--", "touch", marker)
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != proto.ExitSetup || !strings.Contains(string(out), "docket sandbox: init:") || exists(marker) {
		t.Fatalf("err=%v output=%q ran=%v, want exit %d and the init's refusal", err, out, exists(marker), proto.ExitSetup)
	}
}
