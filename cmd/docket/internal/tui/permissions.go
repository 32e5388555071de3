package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
)

// permissionsMsg opens the /permissions picker with what is in force.
type permissionsMsg PermissionsInfo

// cmdPermissions is /permissions: without an argument, the profile in
// force (why, the sandbox, what it hides) and a picker of the profiles;
// with one, the switch, which the backend journals or refuses (a managed
// requirement, a profile the sandbox cannot enforce).
func (m *Model) cmdPermissions(arg string) tea.Cmd {
	p, ok := m.backend.(Permissioner)
	if !ok {
		return m.print(m.renderError("this session cannot switch permission profiles"))
	}
	if arg != "" {
		return async(func() tea.Msg {
			said, err := p.SetPermissions(arg)
			if err != nil {
				return errMsg{err}
			}
			return switchedMsg{what: said}
		})
	}
	return async(func() tea.Msg {
		info, err := p.Permissions()
		if err != nil {
			return errMsg{err}
		}
		return permissionsMsg(info)
	})
}

// permissionsPicker shows what is in force and lists the profiles, the
// one in force selected.
func (m *Model) permissionsPicker(info permissionsMsg) tea.Cmd {
	now := info.Profile
	if now == "" {
		now = "none (sandbox_mode " + info.SandboxMode + ")"
	}
	lines := []string{"permission profile: " + now, "  " + info.Why, "  sandbox " + info.SandboxMode}
	for _, h := range info.Hidden {
		lines = append(lines, "  hides "+h)
	}
	// A hidden path is a file's name, which a sandboxed command may have
	// chosen: each line is shown safe, as the transcript's text is.
	for i, l := range lines {
		lines[i] = safetext.Line(l)
	}
	if len(info.Profiles) == 0 {
		return m.print(m.renderError("no permission profile to switch to"))
	}
	c := &completion{choose: func(m *Model, name string, _ bool) tea.Cmd { return m.cmdPermissions(name) }}
	for i, name := range info.Profiles {
		c.matches = append(c.matches, name)
		label := name
		if name == info.Profile {
			c.sel = i
			label += "  (now)"
		}
		c.labels = append(c.labels, label)
	}
	m.comp = c
	return tea.Sequence(m.print(strings.Join(lines, "\n")),
		m.print(m.renderInfo("choose a permission profile: ↑/↓, Enter; Esc keeps "+now)))
}

// networkLine is what the transcript says of an egress proxy record: each
// answer about a host and each refused connection (what a command could
// not reach, and why); an allowed connection says nothing new.
func networkLine(n engine.Notice) string {
	if d := n.NetworkDecision; d != nil {
		who := "you"
		if d.Source == events.SourceNoAnswer {
			who = "the approval policy never"
		}
		return fmt.Sprintf("network: %s:%d for call %s: %s (answered by %s)", d.Host, d.Port, d.CallID, strings.ReplaceAll(string(d.Answer), "_", " "), who)
	}
	if c := n.NetworkConnection; c != nil && !c.Allowed {
		return fmt.Sprintf("network: refused %s:%d for call %s (%s)", c.Host, c.Port, c.CallID, c.Rule)
	}
	return ""
}
