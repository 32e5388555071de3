package mcpserve

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inMemoryClient connects a client to s over in-memory transports.
func inMemoryClient(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestServerBeforeASession: the tools are listed, the audit of a session
// that ran nothing says so, and a session that cannot be opened is a tool
// error saying why, not a crash.
func TestServerBeforeASession(t *testing.T) {
	s, err := New(Options{Opener: noOpener{}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cs := inMemoryClient(t, s)
	if got := cs.InitializeResult().ProtocolVersion; got != ProtocolVersions[0] {
		t.Errorf("negotiated %s, want %s", got, ProtocolVersions[0])
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 5 {
		t.Errorf("%d tools, want 5", len(tools.Tools))
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		err  bool
		want string
	}{
		{"audit", map[string]any{}, false, "has run no calls yet"},
		{"audit", map[string]any{"call": "x"}, true, `unknown field "call"`},
		{"shell", map[string]any{"command": []string{"true"}}, true, "open a Docket session: no sessions here"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != tc.err || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error=%v %q, want error=%v saying %q", tc.tool, tc.args, res.IsError, text, tc.err, tc.want)
		}
	}
}
