package prompt_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/prompt"
)

// The update names the policy in force and the one it replaces, states
// the sandbox as the instructions do, and is tagged as Codex tags its own.
func TestPermissionsUpdateMatchesGolden(t *testing.T) {
	got, err := prompt.PermissionsUpdate(prompt.Input{Cwd: "/w", WritableRoots: []string{"/w", "/tmp"},
		ApprovalPolicy: "never", SandboxMode: "workspace-write"}, "untrusted")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "permissions.golden.md")
	if *update {
		write(t, path, got)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("the update differs from %s:\n%s", path, got)
	}
	env, err := prompt.Policy(prompt.Input{Cwd: "/w", WritableRoots: []string{"/w", "/tmp"}, ApprovalPolicy: "never", SandboxMode: "workspace-write"})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(env), "\n")[2:] {
		if !strings.Contains(got, line) {
			t.Errorf("the update lacks the instructions' line %q", line)
		}
	}
}

func TestPermissionsUpdateRejectsUnknownPolicyAndMode(t *testing.T) {
	for _, in := range []prompt.Input{{ApprovalPolicy: "sometimes", SandboxMode: "read-only"}, {ApprovalPolicy: "never", SandboxMode: "chroot"}} {
		if _, err := prompt.PermissionsUpdate(in, "untrusted"); err == nil {
			t.Errorf("%+v: accepted", in)
		}
	}
}

// Under a profile whose network goes through the egress proxy the model
// is told so, in both sandbox modes, instead of "blocked".
func TestTheModelIsToldOfTheEgressProxy(t *testing.T) {
	for _, mode := range []string{"read-only", "workspace-write"} {
		for _, egress := range []bool{false, true} {
			env, err := prompt.Policy(prompt.Input{Cwd: "/w", ApprovalPolicy: "on-request", SandboxMode: mode, EgressProxy: egress})
			if err != nil {
				t.Fatal(err)
			}
			proxied := strings.Contains(env, "Network access goes only through a proxy")
			blocked := strings.Contains(env, "Network access is blocked") || strings.Contains(env, "or use the network")
			if proxied != egress || blocked == egress {
				t.Errorf("%s, egress %v: %s", mode, egress, env)
			}
		}
	}
}
