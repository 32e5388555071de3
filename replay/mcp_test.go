package replay_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/docket-engine/docket/states/policy"
)

func mcpDir(t *testing.T) string {
	dir := os.Getenv("MCP_SERVERS_DIR")
	if dir == "" {
		dir, _ = filepath.Abs("../.cache/mcp")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed: run scripts/install-mcp-servers.sh", bin)
	}
	return dir
}

// A session that calls a real MCP server through the state machine is
// journaled in full, so it verify-replays with the server gone.
func TestMCPSessionReplaysWithTheServerGone(t *testing.T) {
	t.Parallel()
	dir := mcpDir(t)
	home, ws := t.TempDir(), t.TempDir()
	mgr, err := mcp.NewManager(map[string]mcp.ServerConfig{"everything": {
		Command: filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything"), StartupTimeoutSec: 60,
		ToolTimeoutSec: 30, EnabledTools: []string{"echo", "get-sum"}, Approval: "always",
	}}, mcp.Options{Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := mgr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	tools := []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}
	for _, tl := range mgr.Tools() {
		tools = append(tools, engine.MCPTool{T: tl})
	}
	b, err := os.ReadFile("../testdata/mcp/echo-and-sum.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	mdl, err := script.Parse("echo-and-sum", b)
	if err != nil {
		t.Fatal(err)
	}
	mode, _ := policy.ParseSandboxMode("workspace-write")
	j, err := journal.Create(home, "mcp-session", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Start(engine.Config{SessionID: "mcp-session", Home: home, Cwd: ws,
		Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, ws, "", false), Model: mdl,
		Approver: flags("approved", "approved"), Runner: &engine.ProcessRunner{MCP: engine.MCPManager{M: mgr}},
		Tools: tools}, j)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Turn(ctx, "echo and add")
	if err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("turn %+v %v", res, err)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	all, err := j.All()
	if err != nil {
		t.Fatal(err)
	}
	var outputs []string // what the model was told, as journaled
	for _, r := range all {
		if r.Kind == events.KindToolOutput {
			b, err := r.Decode()
			if err != nil {
				t.Fatal(err)
			}
			outputs = append(outputs, b.(*events.ToolOutput).Output)
		}
	}
	if len(outputs) != 2 || !strings.Contains(outputs[0], "hello from docket") || !strings.Contains(outputs[1], "42") {
		t.Fatalf("MCP outputs %q", outputs)
	}
	recs, _ := j.Call("m1")
	var causes []string
	for _, r := range recs {
		if r.Kind == events.KindTransition {
			b, _ := r.Decode()
			causes = append(causes, b.(*events.Transition).Event+":"+b.(*events.Transition).Cause)
		}
	}
	if strings.Join(causes, " ") != "ask:needs_approval run_unsandboxed:out_of_process finish:completed" {
		t.Fatalf("m1 path %v", causes)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := mgr.Close(); err != nil { // the servers are gone
		t.Fatal(err)
	}

	if _, err := replay.VerifyFile(context.Background(), j.Path(), replay.Options{}); err != nil {
		t.Fatalf("replay without the server: %v", err)
	}
}
