package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/prompt"
	"github.com/docket-engine/docket/events"
)

// DocketVersion is the version of Docket recorded in every journal this
// package writes unless Options.DocketVersion says otherwise.
const DocketVersion = "0.1.0"

// Options say how to open a session. Workspace and Model are required;
// every other field has the default the docket command line uses when it
// is left zero.
type Options struct {
	// Workspace is the directory the agent works in. It must exist; it is
	// made absolute and its symbolic links resolved.
	Workspace string
	// Model answers the session's turns (required).
	Model model.Model
	// Approver answers approval requests. Nil parks every request: the
	// turn ends TurnParked, and a later Resume with an approver asks again.
	Approver engine.Approver
	// Observer is told of every call's progress and the model's text as it
	// streams; nil tells no one. Notify must not block for long.
	Observer engine.Observer
	// Policy is the session's approval policy, sandbox mode and what goes
	// with them, recorded in its journal. An empty ApprovalPolicy is
	// on-request and an empty SandboxMode workspace-write.
	Policy events.SessionConfig

	// Home is Docket's home: rules are read from Home/rules, amendments are
	// saved there, and the journal goes to Home/sessions unless JournalHome
	// is set. Empty means $DOCKET_HOME, else ~/.docket (DefaultHome).
	Home string
	// JournalHome, when set, is the home whose sessions directory holds the
	// journal (and its subagents' journals) instead of Home's.
	JournalHome string
	// SessionID is the new session's id; empty draws a UUIDv7.
	SessionID string

	// Rules are the rule sources in force. Nil reads the ones in force
	// (rulesfile.InForce for Home and RulesProject); an empty non-nil
	// slice means none.
	Rules []events.RuleSource
	// RulesProject is the project whose .docket/rules load when Rules is
	// nil: set it only for a workspace you trust ("" loads Home's only).
	RulesProject string
	// Instructions are the model's instructions; empty builds them from
	// Prompt (AGENTS.md files, the policy, the writable roots).
	Instructions string
	// Prompt sets what the built instructions read: Home (whose AGENTS.md
	// applies everywhere; empty is Home above), ProjectDocMaxBytes (0 is
	// DefaultProjectDocMaxBytes, negative leaves AGENTS.md out) and
	// FallbackFilenames. Its other fields are filled from the session.
	Prompt prompt.Input
	// Tools are the tools offered to the model; nil offers
	// engine.DefaultTools(). Subagents and MCPServers add theirs.
	Tools []engine.Tool
	// Runner runs the calls; nil runs them as processes under the sandbox
	// (engine.ProcessRunner), on sandbox servers kept for the session.
	Runner engine.Runner
	// Env is the commands' environment (NAME=VALUE); nil inherits this
	// process's. Variables that look like secrets are removed unless
	// KeepSecretEnv.
	Env           []string
	KeepSecretEnv bool
	// HookEnv and HookKeepSecretEnv are the hooks' environment, as Env
	// is the commands'; nil HookEnv uses Env. They differ when a
	// project's config shaped Env: a hook runs as the user, so the
	// project must not choose its PATH or BASH_ENV.
	HookEnv           []string
	HookKeepSecretEnv bool
	// AgentEnv is each external agent's own environment for its run_agent
	// calls (see engine.ProcessRunner.AgentEnv).
	AgentEnv map[string][]string
	// Limits are the resource limits of each sandboxed command.
	Limits events.ResourceLimits
	// AdjustPlan, when set, changes the sandbox plan computed from Policy
	// (Home already read-only in it) before it is recorded: protect more
	// paths, hide some. It is not called on Resume: the recorded plan holds.
	AdjustPlan func(events.SandboxPlan) (events.SandboxPlan, error)
	// Egress, when set, runs an egress proxy for the session (a permission
	// profile's network in limited mode): a sandboxed plan gets an empty
	// network namespace whose only way out is a bridge to the proxy, which
	// decides by the rules in Egress and asks the Approver about a host
	// they do not name. Nil keeps the plan's network as the policy says.
	Egress *engine.Egress
	// MCPServers are MCP servers started with the session, whose tools are
	// offered to the model; MCPOptions say where and how they start.
	MCPServers map[string]mcp.ServerConfig
	MCPOptions mcp.Options
	// PreHooks and PostHooks run before and after each call (engine/hooks).
	PreHooks, PostHooks []hooks.Spec
	// Subagents offers spawn_agent: the model may start child sessions,
	// journaled beside this one. A resumed session that offered it keeps it.
	Subagents bool
	// RiskAssessment asks the model how risky a denied command is, for the
	// retry prompt (experimental_risk_assessment).
	RiskAssessment bool
	// Settings are recorded in session_started for the audit to name.
	Settings []events.Setting
	// OutputSchema is a JSON Schema the model's final message must follow.
	OutputSchema []byte
	// ApprovalTimeout bounds each approval request; 0 waits as long as the
	// turn's context allows.
	ApprovalTimeout time.Duration
	// RequireAnswered makes a resume fail with an error wrapping
	// ErrPending, having written nothing, while the session's last turn
	// still waits (a parked session nobody has answered yet). Open
	// ignores it.
	RequireAnswered bool
	// ResumeDecisions is recorded in a resumed session's session_resumed
	// record: the answers given for it up front (docket's --decisions), so
	// the audit can say where a decision came from.
	ResumeDecisions string
	// Faults is told of named points for crash testing; nil for none.
	Faults engine.Faults
	// DocketVersion is recorded in the journal; empty is DocketVersion.
	DocketVersion string
	// WrapLog, when set, wraps the journal before the session writes to it
	// (a telemetry tap); earlier are the records a resumed journal already
	// holds. The returned stop runs at Close, before the journal closes.
	WrapLog func(ctx context.Context, sessionID string, log engine.Log, earlier []events.Record) (engine.Log, func() error, error)
	// Warn receives what is worth saying but is no error: a stub a killed
	// process left, removed; an MCP server that did not start. Nil
	// discards it.
	Warn func(msg string)
}

// DefaultProjectDocMaxBytes caps the AGENTS.md text in the instructions
// when Options.Prompt leaves ProjectDocMaxBytes 0, as Codex's default does.
const DefaultProjectDocMaxBytes = 32 * 1024

// DefaultHome is Docket's home: $DOCKET_HOME, else ~/.docket.
func DefaultHome() (string, error) {
	if h := os.Getenv("DOCKET_HOME"); h != "" {
		return filepath.Abs(h)
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("session: Docket's home: set $DOCKET_HOME or Options.Home: %w", err)
	}
	return filepath.Join(u, ".docket"), nil
}

func (o *Options) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

// Workspace resolves dir to an existing absolute directory, symbolic links
// resolved, as a session records it.
func Workspace(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("session: no workspace given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s does not exist: %w", dir, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// OptionError is an option that cannot be used as given (an MCP server's
// configuration): the caller's mistake, not the machine's.
type OptionError struct {
	// Option names the field of Options.
	Option string
	Err    error
}

func (e *OptionError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *OptionError) Unwrap() error { return e.Err }
