package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// slashPopup opens the / popup while a command name is being typed (a
// "/" and letters, nothing after): the commands it can still be, with
// their help. Tab completes the name; Enter runs the command.
func (m *Model) slashPopup() bool {
	v := m.input.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return false
	}
	prefix := strings.ToLower(strings.TrimPrefix(v, "/"))
	c := &completion{choose: (*Model).chooseCommand}
	for _, cmd := range commands() {
		if strings.HasPrefix(cmd.name, prefix) {
			c.matches = append(c.matches, cmd.name)
			c.labels = append(c.labels, "/"+cmd.name+"  "+cmd.help)
		}
	}
	if len(c.matches) == 0 {
		return false
	}
	m.comp = c
	return true
}

// chooseCommand completes the chosen command's name; with Enter it runs
// it (a command that takes an argument then opens its picker).
func (m *Model) chooseCommand(name string, enter bool) tea.Cmd {
	if !enter {
		m.input.SetValue("/" + name + " ")
		m.input.CursorEnd()
		return nil
	}
	m.input.Reset()
	m.editInput(func() {})
	return m.submit("/" + name)
}

// approvalsPicker is /approvals without an argument: the four policies,
// the one in force selected.
func (m *Model) approvalsPicker() tea.Cmd {
	policies := []string{"untrusted", "on-failure", "on-request", "never"}
	labels := []string{
		"untrusted   ask before any command not known to be safe",
		"on-failure  run sandboxed; ask only to retry a failure unsandboxed",
		"on-request  run sandboxed; the model asks when it needs more",
		"never       never ask; failures go back to the model",
	}
	c := &completion{matches: policies, labels: labels, choose: func(m *Model, p string, _ bool) tea.Cmd {
		return m.cmdApprovals(p)
	}}
	for i, p := range policies {
		if p == m.info.ApprovalPolicy {
			c.sel = i
			c.labels[i] += "  (now)"
		}
	}
	m.comp = c
	return m.print(m.renderInfo("choose the approval policy: ↑/↓, Enter; Esc keeps " + m.info.ApprovalPolicy))
}

// sessionsMsg opens the /resume picker.
type sessionsMsg []SessionSummary

// resumePicker lists the workspace's sessions to switch to.
func (m *Model) resumePicker(list sessionsMsg) tea.Cmd {
	c := &completion{choose: func(m *Model, id string, _ bool) tea.Cmd { return m.cmdResume(id) }}
	for _, s := range list {
		c.matches = append(c.matches, s.ID)
		c.labels = append(c.labels, s.ID[:min(len(s.ID), 13)]+"  "+s.Started+"  "+s.Preview)
	}
	m.comp = c
	return m.print(m.renderInfo("choose a session to resume: ↑/↓, Enter; Esc stays here"))
}
