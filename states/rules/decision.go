package rules

import "fmt"

// Decision is what a rule says about a command.
type Decision string

// The decisions, weakest first. None means no rule matched.
const (
	None      Decision = "none"
	Allow     Decision = "allow"
	Prompt    Decision = "prompt"
	Forbidden Decision = "forbidden"
)

// ParseDecision parses a rules-file decision: allow, prompt or forbidden.
func ParseDecision(s string) (Decision, error) {
	switch d := Decision(s); d {
	case Allow, Prompt, Forbidden:
		return d, nil
	}
	return "", fmt.Errorf("decision %q is not one of allow, prompt, forbidden", s)
}

// rank orders decisions by strictness.
func (d Decision) rank() int {
	switch d {
	case Allow:
		return 1
	case Prompt:
		return 2
	case Forbidden:
		return 3
	}
	return 0
}

// Stricter returns the stricter of two decisions.
func Stricter(a, b Decision) Decision {
	if b.rank() > a.rank() {
		return b
	}
	if a == "" {
		return None
	}
	return a
}
