package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
)

// The model's side of a turn, scripted: it asks to run a command, then
// answers with its output in mind.
const helloScript = `{"output":[{"type":"function_call","call_id":"call_1","name":"shell","arguments":{"command":["sh","-c","echo hello > greeting.txt"]}}]}
{"output":[{"type":"message","content":"I wrote greeting.txt."}]}
`

// One turn with a scripted model: the command runs under the sandbox
// (workspace-write), and the session's journal records it.
func ExampleOpen() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "docket-example-")
	defer os.RemoveAll(dir)
	workspace := filepath.Join(dir, "work")
	_ = os.Mkdir(workspace, 0o755)

	m, err := script.Parse("hello.jsonl", []byte(helloScript))
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := session.Open(ctx, session.Options{
		Workspace: workspace,
		Home:      filepath.Join(dir, "home"), // else $DOCKET_HOME, else ~/.docket
		Model:     m,
		Policy:    events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
		Rules:     []events.RuleSource{}, // none; nil reads Home's rules
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Turn(ctx, "say hello in a file")
	if err != nil {
		fmt.Println(err)
	}
	if err := s.Close(); err != nil {
		fmt.Println(err)
	}
	b, _ := os.ReadFile(filepath.Join(workspace, "greeting.txt"))
	fmt.Println(res.Status, res.Message)
	fmt.Print(string(b))
	// Output:
	// completed I wrote greeting.txt.
	// hello
}

var _ = engine.ErrNoDecision
