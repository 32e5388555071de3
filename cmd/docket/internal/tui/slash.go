package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// slashCommand is one command of the input line.
type slashCommand struct {
	name, args, help string
	// idleOnly commands change the session: not while a turn runs.
	idleOnly bool
	run      func(m *Model, arg string) tea.Cmd
}

// commands lists the slash commands in the order /help shows them.
func commands() []slashCommand {
	return []slashCommand{
		{name: "status", help: "session, model, policy, sandbox and tokens", run: (*Model).cmdStatus},
		{name: "approvals", args: "[untrusted|on-failure|on-request|never]", help: "show or change the approval policy for the rest of the session (journaled)", idleOnly: true, run: (*Model).cmdApprovals},
		{name: "permissions", args: "[PROFILE]", help: "show the permission profile in force, or switch to another for the rest of the session (journaled)", idleOnly: true, run: (*Model).cmdPermissions},
		{name: "diff", help: "the workspace's git diff, in a pager", run: (*Model).cmdDiff},
		{name: "compact", help: "summarise the conversation to free context", idleOnly: true, run: (*Model).cmdCompact},
		{name: "audit", help: "this session's audit, in a pager", idleOnly: true, run: (*Model).cmdAudit},
		{name: "new", help: "start a new session in this workspace", idleOnly: true, run: (*Model).cmdNew},
		{name: "resume", args: "[SESSION]", help: "switch to a recorded session (no argument: list this workspace's)", idleOnly: true, run: (*Model).cmdResume},
		{name: "mcp", help: "this session's MCP servers: state, tools, why one failed", run: (*Model).cmdMCP},
		{name: "help", help: "this list", run: (*Model).cmdHelp},
		{name: "quit", help: "leave (the session stays resumable); also /exit", run: func(m *Model, _ string) tea.Cmd { _, c := m.quit(); return c }},
	}
}

// slash runs a command typed on the input line.
func (m *Model) slash(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	name, arg = strings.ToLower(name), strings.TrimSpace(arg)
	if name == "exit" {
		name = "quit"
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		if c.idleOnly && m.running {
			return m.print(m.renderInfo("/" + name + " waits until the turn ends (Ctrl-C interrupts it)"))
		}
		return tea.Sequence(m.print(m.renderUser(line)), c.run(m, arg))
	}
	return m.print(m.renderError(fmt.Sprintf("unknown command /%s; /help lists them", name)))
}

// async runs f off the UI goroutine and delivers its message.
func async(f func() tea.Msg) tea.Cmd { return f }

func (m *Model) cmdHelp(string) tea.Cmd {
	var b strings.Builder
	b.WriteString("commands:")
	for _, c := range commands() {
		fmt.Fprintf(&b, "\n  /%s %s  %s", c.name, c.args, c.help)
	}
	b.WriteString("\nkeys: Enter send · Alt-Enter or Ctrl-J newline · ↑/↓ prompt history · Esc or Ctrl-C interrupt the turn, Ctrl-C twice quits · Ctrl-D quit")
	return m.print(b.String())
}

func (m *Model) cmdStatus(string) tea.Cmd {
	i := m.backend.Info()
	m.info = i
	layers := strings.Join(i.Layers, ", ")
	if layers == "" {
		layers = "none"
	}
	window := "unknown"
	if i.Window > 0 {
		window = fmt.Sprintf("%d (%d%% used)", i.Window, i.TokensUsed*100/i.Window)
	}
	lines := []string{
		"session:   " + i.SessionID,
		"journal:   " + i.Journal,
		"workspace: " + i.Cwd,
		"model:     " + i.Model + " (" + i.Provider + ")",
		"approvals: " + i.ApprovalPolicy,
		fmt.Sprintf("sandbox:   %s, network %s, layers: %s", i.SandboxMode, i.Network, layers),
		fmt.Sprintf("tokens:    %d in context; window %s", i.TokensUsed, window),
	}
	return m.print(strings.Join(lines, "\n"))
}

func (m *Model) cmdApprovals(arg string) tea.Cmd {
	if arg == "" {
		return m.approvalsPicker()
	}
	b := m.backend
	return async(func() tea.Msg {
		if err := b.SetApprovalPolicy(arg); err != nil {
			return errMsg{err}
		}
		return switchedMsg{what: "approval policy is now " + arg + " for the rest of this session (journaled; the model is told with its next request)"}
	})
}

func (m *Model) cmdDiff(string) tea.Cmd {
	b, ctx := m.backend, m.ctx
	return async(func() tea.Msg {
		d, err := b.Diff(ctx)
		if err != nil {
			return errMsg{err}
		}
		if strings.TrimSpace(d) == "" {
			return infoMsg("the workspace has no changes against git's index and HEAD")
		}
		return pagerMsg{title: "git diff", text: safeDiff(d), diff: true}
	})
}

func (m *Model) cmdAudit(string) tea.Cmd {
	b, ctx := m.backend, m.ctx
	return async(func() tea.Msg {
		a, err := b.Audit(ctx)
		if err != nil {
			return errMsg{err}
		}
		return pagerMsg{title: "audit of session " + m.info.SessionID, text: a}
	})
}

func (m *Model) cmdMCP(string) tea.Cmd {
	b, ctx := m.backend, m.ctx
	return async(func() tea.Msg {
		s, err := b.MCP(ctx)
		if err != nil {
			return errMsg{err}
		}
		return infoMsg(s)
	})
}

func (m *Model) cmdCompact(string) tea.Cmd {
	c, ok := m.backend.(Compacter)
	if !ok {
		return m.print(m.renderError("this session cannot be compacted"))
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.running, m.cancel, m.interrupting, m.compacting = true, cancel, false, true
	return tea.Sequence(m.print(m.renderInfo("compacting: the model summarises the conversation")), func() tea.Msg {
		summary, err := c.Compact(ctx)
		if err != nil {
			return turnDoneMsg{err: fmt.Errorf("compact: %w", err)}
		}
		return compactedMsg{summary: summary}
	})
}

func (m *Model) cmdNew(string) tea.Cmd {
	b, ctx := m.backend, m.ctx
	return async(func() tea.Msg {
		notes, err := b.New(ctx)
		if err != nil {
			return errMsg{errors.Join(err, noteErr(notes))}
		}
		return switchedMsg{what: notes + "new session " + b.Info().SessionID}
	})
}

func (m *Model) cmdResume(arg string) tea.Cmd {
	b, ctx := m.backend, m.ctx
	if arg == "" {
		return async(func() tea.Msg {
			list, err := b.Sessions()
			if err != nil {
				return errMsg{err}
			}
			if len(list) == 0 {
				return infoMsg("this workspace has no recorded sessions")
			}
			return sessionsMsg(list)
		})
	}
	return async(func() tea.Msg {
		notes, err := b.Resume(ctx, arg)
		if err != nil {
			return errMsg{errors.Join(err, noteErr(notes))}
		}
		return switchedMsg{what: notes + "resumed session " + b.Info().SessionID, pending: b.Pending(), resumed: true}
	})
}

// noteErr turns a backend's notes into an error to show with a failure.
func noteErr(notes string) error {
	if strings.TrimSpace(notes) == "" {
		return nil
	}
	return errors.New(strings.TrimSpace(notes))
}

// compactedMsg ends a /compact.
type compactedMsg struct{ summary string }
