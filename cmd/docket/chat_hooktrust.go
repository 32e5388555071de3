package main

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
)

// askHookTrust is chat's start-up review of a project's hooks, asked on
// the terminal before the UI starts as Codex's TUI does ("Hooks need
// review"): each untrusted hook's whole definition, then one question.
// Yes trusts them as shown (recorded, as docket hooks trust does) and
// reports true so that the caller loads them; anything else goes on
// without them.
func askHookTrust(a *app, cfg *config.Config) (bool, error) {
	waiting := cfg.UntrustedHooks()
	if len(waiting) == 0 {
		return false, nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d hook(s) are new or changed since you last trusted them (a project's hooks, and Codex hooks of a Codex config, run only once trusted). A hook runs as you on every tool call it matches:\n\n", len(waiting))
	for _, r := range waiting {
		writeHookDefinition(&b, r)
		b.WriteString("\n")
	}
	fmt.Fprint(a.stdout, strings.ReplaceAll(b.String(), "\n", "\r\n"))
	fmt.Fprint(a.stdout, "Trust these hooks as shown and run them? (n: continue without them) [y/N] ")
	line, err := readLine(a.stdin)
	if err != nil {
		return false, fmt.Errorf("reading the answer to the hook review: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
	default:
		fmt.Fprint(a.stdout, "not trusted: these hooks do not run (docket hooks trust NAME trusts one)\r\n")
		return false, nil
	}
	if err := config.TrustHooks(cfg.Home, waiting, time.Now()); err != nil {
		return false, err
	}
	fmt.Fprintf(a.stdout, "trusted %d hook(s)\r\n", len(waiting))
	return true, nil
}
