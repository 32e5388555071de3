package config

import (
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/docket-engine/docket/engine/agentout"
	"github.com/docket-engine/docket/states/policy"
)

// AgentProviderPrefix selects an [agents.NAME] CLI as the session's model
// provider: model_provider = "agent:NAME".
const AgentProviderPrefix = "agent:"

// AgentFormats are the output formats an agent CLI may have.
func AgentFormats() []string { return agentout.Formats() }

// agentName is what an agent may be called: it names the agent in
// --agents, in call ids and in messages.
var agentName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// checkAgentValues validates the [agents.NAME] tables one layer sets.
func checkAgentValues(t tree, w where, enum func(key []string, what string, valid []string) error) error {
	agents, _ := lookup(t, "agents")
	at, _ := agents.(tree)
	for _, name := range sortedNames(at) {
		k := func(sub string) []string { return []string{"agents", name, sub} }
		if !agentName().MatchString(name) {
			return w.errorf([]string{"agents", name}, "", "%q is not an agent name (letters, digits, - and _, at most 64)", name)
		}
		if err := enum(k("format"), "agent output format", AgentFormats()); err != nil {
			return err
		}
		if v, ok := lookup(t, k("timeout_sec")...); ok {
			if f, _ := toFloat(v); !(f >= 0 && f <= maxTimeoutSec) || math.IsNaN(f) {
				return w.errorf(k("timeout_sec"), "", "%v is not a number of seconds between 0 and %d", v, maxTimeoutSec)
			}
		}
		if v, ok := lookup(t, k("command")...); ok {
			if s, _ := v.(string); strings.TrimSpace(s) == "" {
				return w.errorf(k("command"), "", "empty (the agent CLI to run, e.g. \"claude\")")
			}
		}
	}
	return nil
}

// checkAgentProvider checks that model_provider = "agent:NAME" names a
// configured agent.
func checkAgentProvider(c *Config, name string, at func(key ...string) Source) error {
	if _, ok := c.Agents[name]; ok {
		return nil
	}
	names := slicesSortedKeys(c.Agents)
	s := ""
	if n := policy.Nearest(name, names); n != "" {
		s = AgentProviderPrefix + n
	}
	if len(names) == 0 {
		return at("model_provider").errorf([]string{"model_provider"}, "", "%q: no [agents.%s] table is configured", c.ModelProvider, name)
	}
	return at("model_provider").errorf([]string{"model_provider"}, s, "%q: agent %q is not configured (agents: %s)", c.ModelProvider, name, strings.Join(names, ", "))
}

// AgentTimeoutMs is the agent's deadline in milliseconds; 0 means the
// default.
func (a Agent) AgentTimeoutMs() int64 { return int64(a.TimeoutSec * 1000) }

// FormatOrDefault is the agent's output format, text when unset.
func (a Agent) FormatOrDefault() string {
	if a.Format == "" {
		return "text"
	}
	return a.Format
}
