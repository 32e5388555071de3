package tui

import (
	"context"

	"github.com/docket-engine/docket/engine"
)

// Info is what the status line and /status show of the session.
type Info struct {
	SessionID      string
	Journal        string // the journal file
	Cwd            string
	Model          string
	Provider       string
	ApprovalPolicy string
	SandboxMode    string
	// Layers are the sandbox layers this machine enforces (landlock:v7,
	// seccomp, ...); empty when the mode runs unsandboxed.
	Layers []string
	// Network says how commands reach the network, in the words every
	// view uses (events.NetworkWords): on, off, through the egress proxy.
	Network string
	// TokensUsed is the context the last request filled (input plus
	// output tokens); Window the model's context window, 0 when unknown.
	TokensUsed, Window int64
}

// SessionSummary is one entry of the /resume list.
type SessionSummary struct {
	ID, Started, Preview string
}

// Backend is the session the UI drives. cmd/docket implements it over the
// engine and the journal; tests substitute a fake. Turn and Continue run
// on their own goroutine; the other methods are called only while no turn
// runs, from the UI's goroutine or a command's.
type Backend interface {
	// Info describes the session now.
	Info() Info
	// Turn runs one prompt to the end of its turn; ctx's cancellation is
	// the user's interrupt (journaled as cancelled, never as a denial).
	Turn(ctx context.Context, prompt string) (engine.TurnResult, error)
	// Pending reports whether the session has an unfinished turn (a
	// resumed one); Continue finishes it.
	Pending() bool
	Continue(ctx context.Context) (engine.TurnResult, error)
	// SetApprovalPolicy changes the policy for the rest of the session,
	// journaled.
	SetApprovalPolicy(policy string) error
	// Diff is the workspace's git diff; Audit this session's audit as text;
	// MCP the session's own MCP servers (state, tools, why one failed),
	// without starting any.
	Diff(ctx context.Context) (string, error)
	Audit(ctx context.Context) (string, error)
	MCP(ctx context.Context) (string, error)
	// New starts a new session in the same workspace; Resume switches to
	// a recorded one (an id, a prefix of one, or "last"); Sessions lists
	// this workspace's recent sessions for /resume without an argument.
	// The text they return (warnings of the configuration) is shown.
	New(ctx context.Context) (string, error)
	Resume(ctx context.Context, ref string) (string, error)
	Sessions() ([]SessionSummary, error)
}

// Compacter is the optional part of a Backend that can summarise the
// conversation (/compact).
type Compacter interface {
	Compact(ctx context.Context) (string, error)
}

// Permissioner is the optional part of a Backend that shows the
// permission profile in force and switches it (/permissions).
type Permissioner interface {
	Permissions() (PermissionsInfo, error)
	// SetPermissions switches to the named profile for the rest of the
	// session, journaled; it returns what to show.
	SetPermissions(name string) (string, error)
}

// PermissionsInfo is the permission profile in force and the choices.
type PermissionsInfo struct {
	// Profile is "" under the legacy sandbox_mode keys.
	Profile, Why, SandboxMode string
	// Hidden are the paths the profile hides from commands.
	Hidden []string
	// Profiles are the names /permissions may switch to.
	Profiles []string
}

// History is the prompt history up and down walk through. Add is called
// with every prompt sent.
type History interface {
	Entries() []string
	Add(prompt string) error
}

// Completer is the optional part of a Backend that completes @ file
// references: up to limit workspace paths matching query, best first.
type Completer interface {
	Complete(query string, limit int) []string
}

// ImageAttacher is the optional part of a Backend that takes a pasted
// image path for the next prompt. ok is false when text is no image's
// path (it is then an ordinary prompt).
type ImageAttacher interface {
	AttachImage(text string) (path string, ok bool, err error)
}

// EntryKind is what one entry of a recorded conversation is.
type EntryKind int

// The kinds of a recorded conversation's entries.
const (
	EntryUser EntryKind = iota
	EntryAssistant
	EntryCall
	EntryInfo
)

// Entry is one piece of a recorded conversation: a prompt, an answer, a
// command and how it ended, or a note (a compaction). Failed marks a call
// that did not complete.
type Entry struct {
	Kind   EntryKind
	Text   string
	Failed bool
}

// Transcripter is the optional part of a Backend that reads back the
// current session's conversation from its journal, shown when a session
// is resumed (as Codex shows the earlier conversation).
type Transcripter interface {
	Transcript() ([]Entry, error)
}
