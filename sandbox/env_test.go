package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docket-engine/docket/events"
)

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "github_token": true, "DB_PASSWORD": true, "ClientSecret": true,
		"KEYCHAIN": true, // contains KEY: the rule is by substring, as specified
		"PATH":     false, "HOME": false, "TERM": false, "LANG": false,
	} {
		if got := isSecretName(name); got != want {
			t.Errorf("isSecretName(%q) = %t, want %t", name, got, want)
		}
	}
}

func TestCommandEnvDropsMalformedEntries(t *testing.T) {
	got := commandEnv([]string{"A=1", "novalue", "=x", "B="}, events.SandboxPlan{Mode: ModeNone}, false)
	if !slices.Equal(got, []string{"A=1", "B="}) {
		t.Fatalf("got %v", got)
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/nonexistent:" + dir}
	tests := []struct {
		name, cmd, cwd, want string
		code                 int
	}{
		{"found on PATH", "tool", "/", tool, 0},
		{"relative to cwd", "./tool", dir, tool, 0},
		{"absolute", tool, "/", tool, 0},
		{"missing", "nope", "/", "", 127},
		{"not executable", "plain", "/", "", 126},
		{"directory", dir, "/", "", 126},
		{"empty", "", "/", "", 127},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lookPath(tt.cmd, env, tt.cwd)
			if tt.code == 0 {
				if err != nil || got != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			ce, ok := err.(*commandError)
			if !ok || ce.code != tt.code {
				t.Fatalf("err = %v, want exit code %d", err, tt.code)
			}
		})
	}
}

func TestCommandEnvDropsSocketVariablesWithTheNetworkOff(t *testing.T) {
	base := []string{"SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "DOCKER_HOST=unix:///run/docker.sock", "DISPLAY=:0", "PATH=/bin"}
	for _, tc := range []struct {
		name string
		plan events.SandboxPlan
		want []string
	}{
		{"network off", events.SandboxPlan{Mode: ModeReadOnly}, []string{"PATH=/bin", envSandbox + "=linux", envNetworkDisabled + "=1"}},
		{"network on", events.SandboxPlan{Mode: ModeReadOnly, Network: true}, append(slices.Clone(base), envSandbox+"=linux")},
		{"unsandboxed", events.SandboxPlan{Mode: ModeNone}, base},
	} {
		if got := commandEnv(base, tc.plan, false); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
