package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/cmd/docket/internal/history"
	"github.com/docket-engine/docket/cmd/docket/internal/tui"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/attach"
	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay/audit"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/states/policy"
	"github.com/spf13/cobra"
)

// chatBackend is the interactive UI's session: the same wiring, journal
// and engine as exec and resume, one session at a time (/new and /resume
// switch). Turns run on the UI's command goroutines; the other methods
// are called only between turns.
type chatBackend struct {
	a       *app
	cmd     *cobra.Command
	flags   *execFlags
	cfg     *config.Config
	cwd     string
	bridge  *tui.Bridge
	addDirs []string
	color   bool

	caps     *sandbox.Capabilities
	turns    sync.WaitGroup
	mu       sync.Mutex
	w        *wiring
	sess     *session.Session
	id, path string
	sc       events.SessionConfig
	cwdOf    string // the session's workspace
	// images wait for the next prompt (a pasted image path, --image).
	images []string
	// index is the workspace's files for @ completion, built on first use.
	index    *attach.Index
	indexErr error
	indexFor string
}

// quietApp is the app with stderr captured: while the UI owns the
// terminal, what wiring prints (warnings) is shown by the UI instead.
func (b *chatBackend) quietApp() (*app, *bytes.Buffer) {
	var buf bytes.Buffer
	return &app{stdin: b.a.stdin, stdout: b.a.stdout, stderr: &buf}, &buf
}

// New starts a new session in the workspace and makes it current.
func (b *chatBackend) New(ctx context.Context) (string, error) {
	a, warn := b.quietApp()
	w, err := wire(ctx, a, b.cfg, b.cwd, wireOptions{addDirs: b.addDirs, bypass: b.flags.bypass, observer: b.bridge, approver: b.bridge})
	if err != nil {
		return warn.String(), err
	}
	s, err := w.open(ctx)
	if err != nil {
		return warn.String(), errors.Join(err, w.finish())
	}
	return warn.String(), b.swap(w, s, s.Config().Session, b.cwd)
}

// Resume opens a recorded session (an id, a unique prefix, "last" or a
// journal file) the way docket resume does, and makes it current.
func (b *chatBackend) Resume(ctx context.Context, ref string) (string, error) {
	sf, err := journal.Find(b.cfg.Home, ref)
	if err != nil {
		return "", err
	}
	if b.sess != nil && sf.ID == b.id {
		return "", fmt.Errorf("session %s is the one open here", sf.ID)
	}
	notes := ""
	var w *wiring
	s, err := session.ResumeWith(ctx, sf.Path, func(rec session.Recorded) (session.Options, error) {
		if rec.Damage != "" {
			notes = fmt.Sprintf("journal %s: %s\n", sf.Path, rec.Damage)
		}
		var err error
		w, err = b.wireResumed(ctx, rec.Started)
		if err != nil {
			return session.Options{}, err
		}
		return w.opts, nil
	})
	if err != nil {
		if w != nil {
			err = errors.Join(err, w.finish())
		}
		return notes, fmt.Errorf("resume %s: %w", sf.ID, sessionError(err))
	}
	ss := s.Config()
	return notes, b.swap(w, s, ss.Session, ss.Cwd)
}

// wireResumed wires a recorded session as runResume does: its own
// workspace's configuration and the model it was driven by (the policy,
// plan and rules it recorded hold).
func (b *chatBackend) wireResumed(ctx context.Context, ss *events.SessionStarted) (*wiring, error) {
	cfg := b.cfg
	if ss.Cwd != "" && ss.Cwd != b.cwd {
		var err error
		if cfg, err = b.flags.loadAt(b.cmd, config.Flags{}, ss.Cwd, b.cfg.Warnings); err != nil {
			return nil, err
		}
	}
	own := *cfg
	cfg = &own
	if err := recordedModel(b.cmd, cfg, ss); err != nil {
		return nil, err
	}
	a, _ := b.quietApp()
	return wire(ctx, a, cfg, ss.Cwd, wireOptions{observer: b.bridge, approver: b.bridge})
}

// swap makes a session current, closing the one before.
func (b *chatBackend) swap(w *wiring, s *session.Session, sc events.SessionConfig, cwd string) error {
	err := b.close()
	b.mu.Lock()
	defer b.mu.Unlock()
	// sc is the configuration the session started with; what a
	// /permissions switch changed since, Info reads from the engine.
	b.w, b.sess, b.id, b.path, b.sc, b.cwdOf = w, s, s.ID(), s.JournalPath(), sc, cwd
	return err
}

// close closes the current session (its journal, sandbox and MCP servers)
// and its terminal side.
func (b *chatBackend) close() error {
	b.mu.Lock()
	w, s := b.w, b.sess
	b.w, b.sess = nil, nil
	b.mu.Unlock()
	var errs []error
	if s != nil {
		errs = append(errs, s.Close())
	}
	if w != nil {
		errs = append(errs, w.finish())
	}
	return errors.Join(errs...)
}

// wait returns once no turn runs.
func (b *chatBackend) wait() { b.turns.Wait() }

func (b *chatBackend) session() *engine.Session {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess == nil {
		return nil
	}
	return b.sess.Engine()
}

// Info describes the current session for the status line.
func (b *chatBackend) Info() tui.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := tui.Info{SessionID: b.id, Journal: b.path, Cwd: b.cwdOf, Model: b.sc.Model, Provider: b.sc.ModelProvider,
		ApprovalPolicy: b.sc.ApprovalPolicy, SandboxMode: b.sc.SandboxMode,
		Network: events.NetworkWords(b.sc.NetworkAccess || b.sc.SandboxMode == policy.DangerFullAccess.String(), false)}
	if b.sess == nil {
		return i
	}
	// The sandbox and network in force are the engine's: a /permissions
	// switch, this session's or a resumed one's, replaced the start's.
	e := b.sess.Engine()
	plan := e.Plan()
	i.ApprovalPolicy, i.SandboxMode, i.Network = e.ApprovalPolicy(), e.SandboxMode(), plan.NetworkWords()
	st := e.ContextStatus()
	i.TokensUsed, i.Window = st.Used, st.Window
	if plan.Sandboxed() {
		if b.caps == nil {
			c := sandbox.Probe()
			b.caps = &c
		}
		i.Layers = b.caps.Layers(plan)
	}
	return i
}

// Turn runs one prompt: its @ references are expanded against the
// session's workspace (the files' content attached and journaled with the
// prompt), and images waiting for it go along.
func (b *chatBackend) Turn(ctx context.Context, prompt string) (engine.TurnResult, error) {
	b.turns.Add(1)
	defer b.turns.Done()
	s := b.session()
	if s == nil {
		return engine.TurnResult{}, errors.New("no session is open")
	}
	b.mu.Lock()
	cwd, images := b.cwdOf, b.images
	b.mu.Unlock()
	res, err := attach.Expand(cwd, prompt, attach.DefaultLimits())
	if err != nil {
		return engine.TurnResult{}, fmt.Errorf("the prompt: %w", err)
	}
	b.mu.Lock()
	b.images = nil
	b.mu.Unlock()
	return s.TurnWithInput(ctx, engine.TurnInput{Text: res.Text, Images: append(images, res.Images...), Attachments: res.Attachments})
}

// AttachImage takes a pasted image path (as a terminal pastes a dropped
// file) for the next prompt; ok is false when text is no image's path.
func (b *chatBackend) AttachImage(text string) (string, bool, error) {
	b.mu.Lock()
	cwd := b.cwdOf
	b.mu.Unlock()
	p, ok := attach.PastedImage(text, cwd)
	if !ok {
		return "", false, nil
	}
	u, err := attach.ImageDataURL(p)
	if err != nil {
		return p, true, err
	}
	b.mu.Lock()
	b.images = append(b.images, u)
	b.mu.Unlock()
	return p, true, nil
}

// Complete returns workspace files matching an @ reference being typed.
// The index (which respects .gitignore) is built on first use.
func (b *chatBackend) Complete(query string, limit int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.index == nil || b.indexFor != b.cwdOf {
		b.index, b.indexErr = attach.NewIndex(b.cwdOf, attach.DefaultIndexLimits())
		b.indexFor = b.cwdOf
	}
	if b.indexErr != nil || b.index == nil {
		return nil
	}
	var out []string
	for _, m := range b.index.Complete(query, limit) {
		out = append(out, m.Path)
	}
	return out
}

// Compact asks the model to summarise the conversation (/compact); the
// summary is journaled as a compaction input record.
func (b *chatBackend) Compact(ctx context.Context) (string, error) {
	b.turns.Add(1)
	defer b.turns.Done()
	s := b.session()
	if s == nil {
		return "", errors.New("no session is open")
	}
	res, err := s.Compact(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("(%d items, about %d tokens, now about %d)\n%s", res.Replaced, res.TokensBefore, res.TokensAfter, res.Summary), nil
}

// Pending reports an unfinished turn of a resumed session.
func (b *chatBackend) Pending() bool {
	s := b.session()
	if s == nil {
		return false
	}
	_, _, ok := s.Pending()
	return ok
}

// Continue finishes it.
func (b *chatBackend) Continue(ctx context.Context) (engine.TurnResult, error) {
	b.turns.Add(1)
	defer b.turns.Done()
	s := b.session()
	if s == nil {
		return engine.TurnResult{}, errors.New("no session is open")
	}
	return s.Continue(ctx)
}

// SetApprovalPolicy changes the policy, journaled as the user's.
func (b *chatBackend) SetApprovalPolicy(p string) error {
	s := b.session()
	if s == nil {
		return errors.New("no session is open")
	}
	return s.SetApprovalPolicy(p, events.SourceUser)
}

// Diff is git's diff of the workspace against HEAD, with untracked files
// named (git diff leaves them out, and they are often what the agent made).
func (b *chatBackend) Diff(ctx context.Context) (string, error) {
	git := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", b.cwdOf}, args...)...).Output()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
		}
		return string(out), err
	}
	color := "--color=never"
	if b.color {
		color = "--color=always"
	}
	d, err := git("diff", color, "HEAD", "--")
	if err != nil {
		// A repository with no commit yet has no HEAD: diff the index.
		if d, err = git("diff", color, "--"); err != nil {
			return "", err
		}
	}
	untracked, err := git("ls-files", "--others", "--exclude-standard")
	if err != nil {
		return "", err
	}
	if u := strings.TrimSpace(untracked); u != "" {
		d += "\nuntracked files:\n  " + strings.ReplaceAll(u, "\n", "\n  ") + "\n"
	}
	return d, nil
}

// Audit is this session's audit as text, from what its journal holds now.
func (b *chatBackend) Audit(ctx context.Context) (string, error) {
	b.mu.Lock()
	s, path := b.sess, b.path
	b.mu.Unlock()
	if s == nil {
		return "", errors.New("no session is open")
	}
	// The file is locked by this process's own writer: audit what it holds.
	recs, err := s.Records()
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := audit.Records(ctx, path, recs, audit.Options{}, audit.NewTextWriter(&out, audit.Options{})); err != nil {
		return "", err
	}
	return out.String(), nil
}

// MCP lists the session's own MCP servers, the ones its tools call, as
// docket mcp list does: each one's state, its tools and, for one that
// failed to start or exited, why. It starts nothing: a fresh set would
// cost a start of every server, and could show a state the session does
// not have (a server that failed at its start, working).
func (b *chatBackend) MCP(context.Context) (string, error) {
	b.mu.Lock()
	s := b.sess
	b.mu.Unlock()
	if s == nil {
		return "", errors.New("no session is open")
	}
	if s.MCP() == nil {
		return "this session has no MCP servers ([mcp_servers.NAME] in config.toml)", nil
	}
	var out bytes.Buffer
	err := mcp.RenderList(&out, s.MCP().Status(), false)
	return strings.TrimRight(out.String(), "\n"), err
}

// Sessions lists this workspace's recent sessions, newest first.
func (b *chatBackend) Sessions() ([]tui.SessionSummary, error) {
	// The picker shows what can be read; `docket sessions` names the rest.
	files, _, err := journal.List(b.cfg.Home)
	if err != nil {
		return nil, err
	}
	var out []tui.SessionSummary
	for _, f := range files {
		if len(out) == pickerLimit {
			break
		}
		if sessionCwd(f.Path) != b.cwd {
			continue
		}
		s := summarizeSession(f)
		out = append(out, tui.SessionSummary{ID: s.ID, Started: s.Started.Format(time.DateTime), Preview: s.Preview})
	}
	return out, nil
}

// history is the prompt history in $DOCKET_HOME; when it cannot be read
// the UI keeps one in memory, and says why.
func (b *chatBackend) history() (tui.History, error) {
	h, err := history.Open(b.cfg.Home, history.DefaultLimits())
	if err != nil {
		return nil, err
	}
	return h, nil
}
