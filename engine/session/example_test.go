package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/replay/audit"
)

// The model's side of a turn, scripted: it asks to run a command, then
// answers with its output in mind.
const helloScript = `{"output":[{"type":"function_call","call_id":"call_1","name":"shell","arguments":{"command":["sh","-c","echo hello > greeting.txt"]}}]}
{"output":[{"type":"message","content":"I wrote greeting.txt."}]}
`

// A script whose command needs an approval under the untrusted policy.
const touchScript = `{"output":[{"type":"function_call","call_id":"call_touch","name":"shell","arguments":{"command":["touch","approved.txt"]}}]}
{"output":[{"type":"message","content":"Created approved.txt."}]}
`

// scratch makes a workspace and a Docket home in a temporary directory.
func scratch() (dir, workspace, home string) {
	dir, _ = os.MkdirTemp("", "docket-example-")
	workspace, home = filepath.Join(dir, "work"), filepath.Join(dir, "home")
	_ = os.Mkdir(workspace, 0o755)
	return dir, workspace, home
}

// One turn with a scripted model: the command runs under the sandbox
// (workspace-write), and the session's journal records it.
func ExampleOpen() {
	ctx := context.Background()
	dir, workspace, home := scratch()
	defer os.RemoveAll(dir)

	m, err := script.Parse("hello.jsonl", []byte(helloScript))
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := session.Open(ctx, session.Options{
		Workspace: workspace,
		Home:      home, // else $DOCKET_HOME, else ~/.docket
		Model:     m,
		Policy:    events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
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

// allowList is an approver of one's own: it approves commands whose
// program it knows, for this session, and denies the rest with a word for
// the model. The engine journals each request before asking, and each
// answer with its source.
type allowList map[string]bool

func (a allowList) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	fmt.Printf("asked: %s (%s)\n", strings.Join(req.Command, " "), req.Phase)
	if len(req.Command) > 0 && a[req.Command[0]] {
		return engine.Answer{Decision: events.ApprovedForSession, Source: events.SourceApprover}, nil
	}
	return engine.Answer{Decision: events.Denied, Source: events.SourceApprover, Feedback: "not on the allow list"}, nil
}

// A custom approver answers the approval requests of an untrusted policy.
func Example_approver() {
	ctx := context.Background()
	dir, workspace, home := scratch()
	defer os.RemoveAll(dir)

	m, _ := script.Parse("touch.jsonl", []byte(touchScript))
	s, err := session.Open(ctx, session.Options{
		Workspace: workspace, Home: home, Model: m,
		Approver: allowList{"touch": true},
		Policy:   events.SessionConfig{ApprovalPolicy: "untrusted", SandboxMode: "workspace-write"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	res, err := s.Turn(ctx, "create approved.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, statErr := os.Stat(filepath.Join(workspace, "approved.txt"))
	fmt.Println(res.Status, res.Message, statErr == nil)
	// Output:
	// asked: touch approved.txt (initial)
	// completed Created approved.txt. true
}

// Resuming a session that stopped mid-turn. The first process had no one
// to ask (no approver): the turn parked with the call waiting, its request
// durable in the journal, exactly as a process killed while asking leaves
// it. A later process resumes the journal with an approver and finishes
// the turn; the command runs once.
func ExampleResume() {
	ctx := context.Background()
	dir, workspace, home := scratch()
	defer os.RemoveAll(dir)
	policy := events.SessionConfig{ApprovalPolicy: "untrusted", SandboxMode: "workspace-write"}

	m, _ := script.Parse("touch.jsonl", []byte(touchScript))
	s, err := session.Open(ctx, session.Options{Workspace: workspace, Home: home, Model: m, Policy: policy})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ := s.Turn(ctx, "create approved.txt")
	fmt.Println(res.Status, res.Parked)
	path := s.JournalPath()
	if err := s.Close(); err != nil {
		fmt.Println(err)
	}

	// Another process, later: the same script (Resume skips the lines
	// already journaled) and someone to ask.
	m, _ = script.Parse("touch.jsonl", []byte(touchScript))
	s, err = session.Resume(ctx, path, session.Options{Home: home, Model: m, Approver: allowList{"touch": true}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	fmt.Println("pending:", s.Pending())
	res, err = s.Continue(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.Message)
	// Output:
	// parked [call_touch]
	// pending: true
	// asked: touch approved.txt (initial)
	// completed Created approved.txt.
}

// Reading the audit of a session: every call, the states it went through,
// who decided and how it ended (package replay/audit; docket audit prints
// the same report).
func ExampleSession_Records() {
	ctx := context.Background()
	dir, workspace, home := scratch()
	defer os.RemoveAll(dir)

	m, _ := script.Parse("touch.jsonl", []byte(touchScript))
	s, err := session.Open(ctx, session.Options{
		Workspace: workspace, Home: home, Model: m,
		Approver: allowList{"touch": true},
		Policy:   events.SessionConfig{ApprovalPolicy: "untrusted", SandboxMode: "workspace-write"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := s.Turn(ctx, "create approved.txt"); err != nil {
		fmt.Println(err)
	}
	path := s.JournalPath()
	if err := s.Close(); err != nil {
		fmt.Println(err)
	}
	// audit.Stream reads a closed journal; s.Records with audit.Records
	// audits an open one.
	if err := audit.Stream(ctx, path, audit.Options{}, callPrinter{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// asked: touch approved.txt (initial)
	// call_touch touch approved.txt: done, exit 0, sandboxed
	//   decided approved_for_session by approver
}

// callPrinter is an audit.Sink that prints each call on a line.
type callPrinter struct{}

func (callPrinter) Begin(*audit.Report) error { return nil }
func (callPrinter) End(*audit.Report) error   { return nil }
func (callPrinter) Call(c *audit.Call) error {
	exit, where := -1, "sandboxed"
	if c.ExitCode != nil {
		exit = *c.ExitCode
	}
	if c.RanUnsandboxed {
		where = "unsandboxed: " + c.WhyUnsandboxed
	}
	fmt.Printf("%s %s: %s, exit %d, %s\n", c.CallID, strings.Join(c.Command, " "), c.FinalState, exit, where)
	for _, d := range c.Decisions {
		fmt.Printf("  decided %s by %s\n", d.Decision, d.Source)
	}
	return nil
}
