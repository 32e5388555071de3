// Package agentcli is the model provider that asks an external agent CLI
// (model_provider = "agent:NAME"): each request becomes one run of the CLI
// with the conversation as its prompt, and its final answer, read in the
// CLI's output format, is the response's one message.
//
// The CLI is an agent, not a model: it may run its own tools, and those run
// inside its process, outside Docket's approval policy and sandbox, and are
// not journaled. Docket journals what it sent (model_request) and the
// answer (model_response), and offers the CLI none of its own tools.
package agentcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/docket-engine/docket/engine/agentout"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/proctree"
)

// Placeholder in Args is replaced by the prompt; without it the prompt is
// the last argument.
const Placeholder = "{prompt}"

// maxCapture bounds what is kept of the CLI's stdout and of its stderr.
const maxCapture = 4 << 20

// Provider runs one agent CLI per request.
type Provider struct {
	// Name is the agent's [agents.NAME] name, for messages and the
	// response id.
	Name    string
	Command string
	Args    []string
	// Env is added to the process's environment (NAME=VALUE).
	Env []string
	// Dir is the working directory (the workspace).
	Dir string
	// Timeout is the deadline of one request; at it every process the CLI
	// started is killed (see proctree for how they are found).
	Timeout time.Duration
	// Format is the CLI's output format (agentout.Formats).
	Format string

	// tree adjusts how the CLI's processes are found; the zero value takes
	// the strongest mechanism. Tests set it to show what the process group
	// alone lets escape.
	tree proctree.Options
}

// Prompt renders a conversation for a CLI that takes one prompt: a lone
// user message as it is, a longer conversation as a transcript. Tool calls
// never appear (the CLI is offered none of Docket's tools), nor do
// developer and system messages: they instruct a model about Docket's
// tools and policy (an /approvals update), as the instructions the CLI is
// not sent do, and would read as the user's words in a transcript.
func Prompt(items []events.Item) string {
	var msgs []events.Item
	for _, it := range items {
		if it.Role == "developer" || it.Role == "system" {
			continue
		}
		if it.Type == events.ItemMessage && strings.TrimSpace(it.Text) != "" {
			msgs = append(msgs, it)
		}
	}
	if len(msgs) == 1 && msgs[0].Role == "user" {
		return msgs[0].Text
	}
	var b strings.Builder
	b.WriteString("Continue this conversation; answer the last user message.\n")
	for _, m := range msgs {
		role := "User"
		if m.Role == "assistant" {
			role = "Assistant"
		}
		fmt.Fprintf(&b, "\n%s:\n%s\n", role, m.Text)
	}
	return b.String()
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

// Respond runs the CLI with the conversation as its prompt.
func (p *Provider) Respond(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Response, error) {
	prompt := Prompt(req.Items)
	if strings.TrimSpace(prompt) == "" {
		return model.Response{}, fmt.Errorf("agent %s: nothing to ask", p.Name)
	}
	runCtx := ctx
	var cancel context.CancelFunc = func() {}
	if p.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, p.Timeout)
	}
	defer cancel()
	argv := argvFor(p.Args, prompt)
	stdout, stderr := &capped{max: maxCapture}, &capped{max: 64 << 10}
	// Everything the CLI starts goes when it exits, at the deadline and on
	// cancel: an agent's children (its tools, a node wrapper's native
	// binary, a server it daemonized with setsid) must not outlive the
	// request, nor hold its output pipe open.
	tree := proctree.New(p.tree)
	// PR_SET_PDEATHSIG fires when the forking thread ends, not the
	// process: hold the thread until the CLI is reaped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd, err := tree.Start(func() *exec.Cmd {
		cmd := exec.CommandContext(runCtx, p.Command, argv...)
		cmd.Dir = p.Dir
		cmd.Env = append(os.Environ(), p.Env...)
		cmd.SysProcAttr = lifeline()
		cmd.Cancel = tree.Kill
		cmd.WaitDelay = 5 * time.Second
		cmd.Stdout, cmd.Stderr = stdout, stderr
		return cmd
	})
	if err == nil {
		err = tree.Wait(cmd)
	}
	if cerr := tree.Close(); cerr != nil {
		return model.Response{}, fmt.Errorf("agent %s: processes it started could not all be killed: %w", p.Name, cerr)
	}
	if ctx.Err() != nil {
		return model.Response{}, fmt.Errorf("agent %s: %w", p.Name, ctx.Err())
	}
	if runCtx.Err() != nil {
		return model.Response{}, fmt.Errorf("agent %s: no answer within %s; %s", p.Name, p.Timeout, killedWords(tree.Mechanism()))
	}
	answer, perr := agentout.Parse(p.Format, stdout.buf.String())
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		why := lastLine(stderr.buf.String())
		if perr != nil {
			why = perr.Error()
		}
		return model.Response{}, fmt.Errorf("agent %s exited %d: %s", p.Name, ee.ExitCode(), why)
	case err != nil:
		return model.Response{}, fmt.Errorf("agent %s: %w", p.Name, err)
	case perr != nil:
		return model.Response{}, fmt.Errorf("agent %s: %w", p.Name, perr)
	case strings.TrimSpace(answer) == "":
		return model.Response{}, fmt.Errorf("agent %s exited 0 but gave no answer", p.Name)
	}
	if onDelta != nil {
		onDelta(model.Delta{Kind: model.DeltaText, Text: answer})
	}
	return model.Response{ID: "agent:" + p.Name, Attempts: 1,
		Items: []events.Item{{Type: events.ItemMessage, Role: "assistant", Text: answer}}}, nil
}

// killedWords says what a deadline killed, no more than the mechanism
// that held: a process that could leave its cgroup (root, unsandboxed)
// is not in it.
func killedWords(m proctree.Mechanism) string {
	if m == proctree.ProcessGroup {
		return "its process group was killed"
	}
	return "every process in its cgroup was killed (" + string(m) + ")"
}

func argvFor(args []string, prompt string) []string {
	out := make([]string, 0, len(args)+1)
	placed := false
	for _, a := range args {
		if strings.Contains(a, Placeholder) {
			a = strings.ReplaceAll(a, Placeholder, prompt)
			placed = true
		}
		out = append(out, a)
	}
	if !placed {
		out = append(out, prompt)
	}
	return out
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if l == "" {
		return "no output on stderr"
	}
	if len(l) > 300 {
		l = l[:300] + "..."
	}
	return l
}
