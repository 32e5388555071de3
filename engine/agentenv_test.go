package engine

import (
	"slices"
	"testing"
)

func TestAgentEnvKeepsTheAgentsOwnSecretsOnly(t *testing.T) {
	t.Parallel()
	base := []string{"PATH=/bin", "OPENAI_API_KEY=docket's", "STANDIN=base", "noequals"}
	own := []string{"ANTHROPIC_API_KEY=the agent's", "STANDIN=own"}
	got, keep := agentEnv(base, false, own)
	want := []string{"PATH=/bin", "ANTHROPIC_API_KEY=the agent's", "STANDIN=own"}
	if !slices.Equal(got, want) || !keep {
		t.Errorf("env %q (keep %v), want %q", got, keep, want)
	}
	got, _ = agentEnv(base, true, nil)
	if !slices.Contains(got, "OPENAI_API_KEY=docket's") {
		t.Errorf("with secrets kept, docket's key is gone: %q", got)
	}
}
