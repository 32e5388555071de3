package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
)

// printWarnings says the configuration's warnings on stderr (an untrusted
// project's files that were not loaded, an ignored -c), and its notes
// (Codex keys Docket has no use for, a Codex home read) the first time
// only: a note said once is marked under Docket's home, and said again
// only when its text changes. A message may quote a project's config (an
// MCP server's or a hook's name), which whoever writes the project chose:
// it goes through safetext, so it cannot rewrite the warning it is in.
func printWarnings(w io.Writer, cfg *config.Config) {
	for _, msg := range cfg.Warnings {
		fmt.Fprintln(w, "docket: warning:", safetext.Text(msg))
	}
	for _, msg := range cfg.Notes {
		if noteOnce(cfg.Home, msg) {
			fmt.Fprintln(w, "docket: note (said once):", safetext.Text(msg))
		}
	}
}

// noteOnce reports whether msg has not been said from this home yet, and
// marks it said. A home that cannot be written says it every time.
func noteOnce(home, msg string) bool {
	sum := sha256.Sum256([]byte(msg))
	dir := filepath.Join(home, "notes")
	mark := filepath.Join(dir, hex.EncodeToString(sum[:12]))
	if _, err := os.Stat(mark); err == nil {
		return false
	}
	if os.MkdirAll(dir, 0o700) == nil {
		// Best effort: a note said twice is the worst a failure costs.
		_ = os.WriteFile(mark, nil, 0o600)
	}
	return true
}

// commandEnv is the environment of shell commands and patches, built by
// [shell_environment_policy] from Docket's own; keepSecrets is set when the
// policy itself admits secret-looking variables, which the sandbox would
// otherwise strip.
func commandEnv(cfg *config.Config) (env []string, keepSecrets bool) {
	return cfg.ShellEnvironmentPolicy.Build(os.Environ())
}

// rulesProject is the project whose .docket/rules load: cwd when
// [projects] trusts it, else none.
func rulesProject(cfg *config.Config, cwd string) string {
	if cfg.TrustFor(cwd).Trusted() {
		return cwd
	}
	return ""
}

// notifyTimeout bounds how long Docket waits for the notify program
// before it exits; Codex waits 1.5 s, Docket a little longer because a
// one-shot exec has nothing else to do.
const notifyTimeout = 10 * time.Second

// notifyPayload is the JSON Codex appends to the notify program's argv
// when a turn completes.
type notifyPayload struct {
	Type                 string   `json:"type"`
	ThreadID             string   `json:"thread-id"`
	TurnID               string   `json:"turn-id"`
	Cwd                  string   `json:"cwd"`
	InputMessages        []string `json:"input-messages"`
	LastAssistantMessage *string  `json:"last-assistant-message"`
}

// notifyTurn runs the configured notify program after a completed turn,
// as Codex does: argv from config, the JSON payload as the last argument.
// prompt is "" for a turn resumed after a crash or a parked approval.
// A program that fails or hangs is reported on stderr; it never changes
// the turn's outcome.
func notifyTurn(ctx context.Context, stderr io.Writer, cfg *config.Config, sessionID, cwd, prompt string, res engine.TurnResult) {
	if len(cfg.Notify) == 0 || res.Status != events.TurnCompleted {
		return
	}
	p := notifyPayload{Type: "agent-turn-complete", ThreadID: sessionID, TurnID: res.TurnID, Cwd: cwd, InputMessages: []string{}}
	if prompt != "" {
		p.InputMessages = []string{prompt}
	}
	if res.Message != "" {
		p.LastAssistantMessage = &res.Message
	}
	b, err := json.Marshal(p)
	if err != nil {
		fmt.Fprintln(stderr, "docket: warning: notify:", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), notifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Notify[0], append(cfg.Notify[1:], string(b))...)
	cmd.Dir = cwd
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(stderr, "docket: warning: notify %s: %v\n", cfg.Notify[0], err)
	}
}
