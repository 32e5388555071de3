package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/replay/audit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type auditArgs struct {
	CallID          string `json:"call_id"`
	UnsandboxedOnly bool   `json:"unsandboxed_only"`
	Format          string `json:"format"`
}

// auditHandler reads the audit of the client's session: from the open
// journal while the session runs, from the file once it parked or closed.
func (s *Server) auditHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a auditArgs
	if len(req.Params.Arguments) > 0 && string(req.Params.Arguments) != "null" {
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return toolError(fmt.Sprintf("audit: arguments: %v", err), nil), nil
		}
	}
	switch a.Format {
	case "", "text", "json":
	default:
		return toolError(fmt.Sprintf("audit: format %q: want text or json", a.Format), nil), nil
	}
	c, err := s.client(req.Session)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	sess, id, path := c.sess, c.id, c.path
	c.mu.Unlock()
	if path == "" {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "this MCP session has run no calls yet: it has no journal to audit"}}}, nil
	}
	opts := audit.Options{CallID: a.CallID, UnsandboxedOnly: a.UnsandboxedOnly}
	var buf bytes.Buffer
	var sink audit.Sink
	if a.Format == "json" {
		sink = audit.NewJSONWriter(&buf)
	} else {
		sink = audit.NewTextWriter(&buf, opts)
	}
	if sess != nil {
		recs, rerr := sess.Records()
		if rerr != nil {
			return toolError(fmt.Sprintf("audit of session %s: %v", id, rerr), nil), nil
		}
		err = audit.Records(ctx, path, recs, opts, sink)
	} else {
		err = audit.Stream(ctx, path, opts, sink)
	}
	text := buf.String()
	if err != nil {
		return toolError(strings.TrimSpace(text+"\n"+fmt.Sprintf("audit of session %s: %v", id, err)), nil), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}
