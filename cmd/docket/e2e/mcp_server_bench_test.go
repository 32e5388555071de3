package e2e

import (
	"context"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPServerShellCall is one `true` through docket mcp-server over
// stdio: the client's round trip, the turn (two relay requests), the
// decision, the write-ahead commits and the run, sandboxed or not.
func BenchmarkMCPServerShellCall(b *testing.B) {
	for _, mode := range []string{"workspace-write", "danger-full-access"} {
		b.Run(mode, func(b *testing.B) {
			e := mcpServerEnv{home: b.TempDir(), ws: b.TempDir()}
			cmd := exec.Command(docketBin, "mcp-server", "--home", e.home, "-C", e.ws, "--skip-git-repo-check", "-a", "never", "-s", mode)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := map[string]any{"command": []string{"true"}}
			call := func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shell", Arguments: args})
				if err != nil || res.IsError {
					b.Fatalf("call: %v %+v", err, res)
				}
			}
			call() // opens the session: journal, sandbox server
			b.ResetTimer()
			for range b.N {
				call()
			}
		})
	}
}
