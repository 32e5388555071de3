package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersions are the MCP versions the server speaks. 2026-07-28
// (SEP-2322, SEP-2575) forbids a server's own elicitation requests during
// a call and drops sessions; Docket's approvals ask in the middle of a
// call and its journal is per client session, so the server stays on the
// session-based versions (docs/decisions.md).
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Options configure a Server.
type Options struct {
	// Opener opens each client session's Docket session.
	Opener Opener
	// Version is Docket's version, the server's implementation version.
	Version string
}

// Server is the MCP server: one mcp.Server whose client sessions each get
// a Docket session of their own.
type Server struct {
	opener Opener
	mcp    *mcp.Server

	mu      sync.Mutex
	clients map[*mcp.ServerSession]*client
	closed  bool
}

// New builds the server and its tools.
func New(o Options) (*Server, error) {
	if o.Opener == nil {
		return nil, errors.New("mcpserve: an Opener is required")
	}
	s := &Server{opener: o.Opener, clients: map[*mcp.ServerSession]*client{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "docket", Title: "Docket", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "Docket runs your tool calls under its state machine, sandbox and journal; the audit tool " +
			"explains every call, including why any ran without a sandbox.",
		SupportedProtocolVersions: ProtocolVersions,
	})
	for _, t := range engineTools() {
		s.mcp.AddTool(t, s.engineHandler(t.Name))
	}
	s.mcp.AddTool(auditTool(), s.auditHandler)
	return s, nil
}

// MCP returns the mcp.Server, for a transport to run.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ServeStdio serves one client on in and out (the process's stdin and
// stdout) until it disconnects or ctx is done, then closes its session.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		err = nil
	}
	return errors.Join(err, s.Close())
}

// Close closes every client's Docket session and refuses new ones.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	cs := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.close())
	}
	return errors.Join(errs...)
}

// client returns the state of an MCP client session, creating it on first
// use; it is closed when the client's session ends.
func (s *Server) client(ss *mcp.ServerSession) (*client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("the server is shutting down")
	}
	if c, ok := s.clients[ss]; ok {
		return c, nil
	}
	c := &client{srv: s, ss: ss, obs: newCollector()}
	s.clients[ss] = c
	go func() {
		_ = ss.Wait() // how the session ended does not change what closing does
		_ = c.close() // reported by the session's own close; nobody to tell here
		s.mu.Lock()
		delete(s.clients, ss)
		s.mu.Unlock()
	}()
	return c, nil
}

// clientName is the client's name and version from its initialize request.
func clientName(ss *mcp.ServerSession) string {
	p := ss.InitializeParams()
	if p == nil || p.ClientInfo == nil {
		return "an MCP client"
	}
	if p.ClientInfo.Version == "" {
		return p.ClientInfo.Name
	}
	return fmt.Sprintf("%s %s", p.ClientInfo.Name, p.ClientInfo.Version)
}

// nopWriteCloser leaves closing stdout to the process.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
