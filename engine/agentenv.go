package engine

import (
	"os"
	"strings"

	"github.com/docket-engine/docket/sandbox"
)

// agentEnv is an agent's environment: the commands' environment (base, or
// the process's when nil) with secret-looking variables removed unless
// keepSecrets, then the agent's own variables, which are kept whatever
// their names (an agent CLI needs its API key, and the operator named it).
// It returns keep=true so the sandbox does not filter again.
func agentEnv(base []string, keepSecrets bool, own []string) ([]string, bool) {
	if base == nil {
		base = os.Environ()
	}
	set := make(map[string]bool, len(own))
	for _, kv := range own {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	out := make([]string, 0, len(base)+len(own))
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || set[name] || (!keepSecrets && sandbox.IsSecretName(name)) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, own...), true
}
