package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/docket-engine/docket/sandbox"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options tune a Manager; the zero value is usable.
type Options struct {
	// Environ is the parent environment that ${VAR} expands from and that
	// servers inherit HOME, PATH and the like from; nil means os.Environ().
	Environ []string
	// Dir is the session's working directory: servers without a cwd run
	// there, and a relative cwd is resolved against it; "" means the process's.
	Dir string
	// ClientName and ClientVersion are sent in initialize (default "docket", "dev").
	ClientName    string
	ClientVersion string
	// Stderr receives the servers' stderr, each line prefixed with
	// "[server] "; nil discards it (the tail is kept for error messages).
	Stderr io.Writer
	// Now is the clock for restart backoff; nil means time.Now.
	Now func() time.Time
	// RestartBackoff is the wait before restarting a server that exited
	// twice without answering a call in between; it doubles with each
	// further exit up to MaxRestartBackoff. A first exit restarts at once.
	// Defaults 1s and 30s.
	RestartBackoff    time.Duration
	MaxRestartBackoff time.Duration
	// TerminateGrace is how long a server gets to exit after its stdin is
	// closed before SIGTERM, then SIGKILL (default 2s).
	TerminateGrace time.Duration
	// Logger receives the SDK's client logs; nil discards them.
	Logger *slog.Logger
	// SandboxPlan gives the plan of each server with sandbox = true; nil
	// makes such servers fail to start.
	SandboxPlan SandboxPlanFunc
	// SandboxHelper is the sandbox helper binary; "" means
	// sandbox.DefaultHelperPath().
	SandboxHelper string
	// StubRecords is sandbox.Request.StubRecords for the servers'
	// sandboxes: where stubs are recorded until removed.
	StubRecords string
	// HTTPTransport carries the requests to remote servers (url); nil
	// means http.DefaultTransport.
	HTTPTransport http.RoundTripper
}

// Manager owns the configured MCP servers: it starts them, registers their
// tools under qualified names and routes calls to them. It is safe for
// concurrent use.
type Manager struct {
	opts    Options
	environ []string
	stderr  *lockedWriter
	client  *sdk.Client
	servers map[string]*server
	names   []string // sorted server names
	// prober probes the sandbox once, for the servers with sandbox = true.
	prober sandbox.Prober

	// closing is cancelled by Close so that calls in flight end.
	closing context.Context
	cancel  context.CancelFunc

	startOnce sync.Once
	startErr  error

	mu     sync.RWMutex
	tools  []Tool
	byName map[string]Tool
	byRef  map[ToolRef]Tool
	closed bool
}

// NewManager validates the server configs and returns a Manager that has
// started nothing yet; an invalid config is an error naming its key.
func NewManager(servers map[string]ServerConfig, opts Options) (*Manager, error) {
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	opts.ClientName = cmp.Or(opts.ClientName, "docket")
	opts.ClientVersion = cmp.Or(opts.ClientVersion, "dev")
	opts.RestartBackoff = cmp.Or(opts.RestartBackoff, time.Second)
	opts.MaxRestartBackoff = cmp.Or(opts.MaxRestartBackoff, 30*time.Second)
	opts.TerminateGrace = cmp.Or(opts.TerminateGrace, 2*time.Second)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Manager{
		opts:    opts,
		environ: opts.Environ,
		servers: make(map[string]*server, len(servers)),
		byName:  map[string]Tool{},
		byRef:   map[ToolRef]Tool{},
	}
	if opts.Stderr != nil {
		m.stderr = &lockedWriter{w: opts.Stderr}
	}
	for name, cfg := range servers {
		m.names = append(m.names, name)
		if err := cfg.Validate(name); err != nil {
			return nil, err
		}
	}
	slices.Sort(m.names)
	for _, name := range m.names {
		m.servers[name] = newServer(m, name, servers[name])
	}
	// Capabilities{} advertises no roots: a server must not replace the
	// directories it was configured with by whatever Docket would answer.
	m.client = sdk.NewClient(&sdk.Implementation{Name: opts.ClientName, Version: opts.ClientVersion},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}, Logger: opts.Logger})
	m.closing, m.cancel = context.WithCancel(context.Background())
	return m, nil
}

// Start starts every enabled server concurrently, each within its
// startup_timeout_sec, and registers the tools of those that came up. A
// server that fails is reported in the returned error (one *ServerError per
// server, joined) and in List; the others still work. Calling Start again
// returns the first call's result.
func (m *Manager) Start(ctx context.Context) error {
	m.startOnce.Do(func() { m.startErr = m.start(ctx) })
	return m.startErr
}

func (m *Manager) start(ctx context.Context) error {
	errs := make([]error, len(m.names))
	var wg sync.WaitGroup
	for i, name := range m.names {
		s := m.servers[name]
		if !s.cfg.IsEnabled() {
			continue
		}
		wg.Go(func() { errs[i] = s.start(ctx) })
	}
	wg.Wait()
	if err := m.register(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// register builds the tool registry from the servers' listings.
func (m *Manager) register() error {
	var tools []Tool
	for _, name := range m.names {
		s := m.servers[name]
		s.mu.Lock()
		raw := s.raw
		s.mu.Unlock()
		seen := map[string]bool{}
		for _, t := range raw {
			if seen[t.Name] || !s.cfg.allows(t.Name) {
				continue
			}
			seen[t.Name] = true
			tools = append(tools, newTool(name, s.cfg, t))
		}
	}
	slices.SortFunc(tools, func(a, b Tool) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Name, b.Name))
	})
	refs := make([]ToolRef, len(tools))
	for i, t := range tools {
		refs[i] = t.Ref()
	}
	names, err := Qualify(refs)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range tools {
		tools[i].Qualified = names[tools[i].Ref()]
		m.byName[tools[i].Qualified] = tools[i]
		m.byRef[tools[i].Ref()] = tools[i]
	}
	m.tools = tools
	return nil
}

func newTool(server string, cfg ServerConfig, t *sdk.Tool) Tool {
	out := Tool{
		Server:       server,
		Name:         t.Name,
		Description:  t.Description,
		ParallelSafe: cfg.SupportsParallelToolCalls,
		Approval:     cfg.ApprovalSetting(),
	}
	if t.InputSchema != nil {
		if b, err := json.Marshal(t.InputSchema); err == nil {
			out.InputSchema = b
		}
	}
	if a := t.Annotations; a != nil {
		out.ReadOnly = a.ReadOnlyHint
		out.Destructive = a.DestructiveHint != nil && *a.DestructiveHint
	}
	return out
}

// Tools returns the registered tools ordered by server, then raw name.
func (m *Manager) Tools() []Tool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.tools)
}

// Lookup returns the tool registered under a qualified name, with the
// provenance its calls are routed by.
func (m *Manager) Lookup(qualified string) (Tool, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t, ok := m.byName[qualified]
	return t, ok
}

// Server returns the config of a server, for callers that need its settings.
func (m *Manager) Server(name string) (ServerConfig, bool) {
	s, ok := m.servers[name]
	if !ok {
		return ServerConfig{}, false
	}
	return s.cfg, true
}

// Close stops every server: calls in flight are cancelled, each process
// gets its stdin closed, then SIGTERM and SIGKILL after TerminateGrace.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.close)
	}
	wg.Wait()
	return nil
}

func (m *Manager) now() time.Time { return m.opts.Now() }

// backoff is the wait before the restart that follows the nth strike.
func (m *Manager) backoff(strikes int) time.Duration {
	if strikes <= 1 {
		return 0
	}
	d := m.opts.RestartBackoff
	for i := 2; i < strikes && d < m.opts.MaxRestartBackoff; i++ {
		d *= 2
	}
	return min(d, m.opts.MaxRestartBackoff)
}

// lookupRef finds a registered tool by provenance, or says why there is none.
func (m *Manager) lookupRef(server, tool string) (Tool, *server, error) {
	s, ok := m.servers[server]
	if !ok {
		return Tool{}, nil, &CallError{Server: server, Tool: tool, Kind: ErrUnknownServer}
	}
	m.mu.RLock()
	t, ok := m.byRef[ToolRef{Server: server, Tool: tool}]
	closed := m.closed
	m.mu.RUnlock()
	if closed {
		return Tool{}, nil, &CallError{Server: server, Tool: tool, Kind: ErrClosed}
	}
	if !ok && !s.listed() {
		return Tool{}, nil, &CallError{Server: server, Tool: tool, Kind: ErrServerUnavailable, Err: s.whyNotListed()}
	}
	if !ok {
		return Tool{}, nil, &CallError{Server: server, Tool: tool, Kind: ErrUnknownTool,
			Err: fmt.Errorf("not listed by the server, or filtered by enabled_tools/disabled_tools")}
	}
	return t, s, nil
}
