package sandbox

import (
	"strings"

	"github.com/docket-engine/docket/events"
)

// secretMarkers are the substrings that make a variable name look secret.
var secretMarkers = [...]string{"KEY", "SECRET", "TOKEN", "PASSWORD"}

// Variables the sandbox sets for the command, so that tools (and tests) can
// tell they are confined.
const (
	envSandbox         = "DOCKET_SANDBOX"
	envNetworkDisabled = "DOCKET_SANDBOX_NETWORK_DISABLED"
)

// isSecretName reports whether an environment variable name looks like it
// holds a credential.
func isSecretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, m := range secretMarkers {
		if strings.Contains(upper, m) {
			return true
		}
	}
	return false
}

// socketEnv are variables that point a command at a unix socket or a
// display outside the sandbox (an ssh or gpg agent, a session bus, a docker
// daemon, an X or Wayland server). With the network off those sockets are
// covered anyway (see sockets_linux.go); not passing the variables keeps
// tools from trying, and from learning where the sockets are.
var socketEnv = [...]string{
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
	"DBUS_SYSTEM_BUS_ADDRESS", "DOCKER_HOST", "CONTAINER_HOST", "PODMAN_HOST",
	"WAYLAND_DISPLAY", "DISPLAY", "XAUTHORITY", "PULSE_SERVER",
}

func isSocketEnv(name string) bool {
	for _, n := range socketEnv {
		if n == name {
			return true
		}
	}
	return false
}

// commandEnv builds the command's environment from base: secrets removed
// unless keepSecrets, entries without '=' dropped, socketEnv dropped for a
// sandboxed plan with the network off, and the DOCKET_SANDBOX variables set
// for a sandboxed plan.
func commandEnv(base []string, plan events.SandboxPlan, keepSecrets bool) []string {
	out := make([]string, 0, len(base)+2)
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if !keepSecrets && isSecretName(name) {
			continue
		}
		if plan.Sandboxed() && (name == envSandbox || name == envNetworkDisabled) {
			continue
		}
		if plan.Sandboxed() && !plan.Network && isSocketEnv(name) {
			continue
		}
		out = append(out, kv)
	}
	if plan.Sandboxed() {
		out = append(out, envSandbox+"=linux")
		if !plan.Network {
			out = append(out, envNetworkDisabled+"=1")
		}
	}
	return out
}

// envLookup returns the last value of name in env, as getenv would.
func envLookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}
