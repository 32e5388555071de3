package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// runMsgs runs cmd and feeds the messages it gives back to the model,
// returning what was printed.
func runMsgs(m *Model, cmd tea.Cmd) []string {
	msgs, printed, _ := runAll(cmd)
	for _, msg := range msgs.([]tea.Msg) {
		_, c := m.Update(msg)
		printed = append(printed, runMsgs(m, c)...)
	}
	return printed
}

// Typing / opens a popup of the commands with their help, narrowed as the
// name is typed; Tab completes the name and Enter runs the command.
func TestSlashPopup(t *testing.T) {
	m := newTestModel(newFake())
	typeDrawn(m, "/")
	v := m.View()
	for _, want := range []string{"/approvals  show or change", "/resume  switch to a recorded session", "/quit  leave"} {
		if !strings.Contains(v, want) {
			t.Errorf("the / popup lacks %q:\n%s", want, v)
		}
	}
	typeDrawn(m, "st")
	if v := m.View(); !strings.Contains(v, "› /status  session, model") || strings.Contains(v, "/approvals") {
		t.Fatalf("the popup is not narrowed to /status:\n%s", v)
	}
	press(m, key("tab"))
	if got := m.input.Value(); got != "/status " {
		t.Fatalf("Tab gave %q, want the completed name", got)
	}
	m.input.Reset()
	typeDrawn(m, "/sta")
	_, cmd := m.Update(key("enter"))
	if out := strings.Join(runMsgs(m, cmd), "\n"); !strings.Contains(out, "session:   019abcde") {
		t.Fatalf("Enter in the popup did not run /status: %q", out)
	}
}

// /approvals without an argument is a picker of the four policies, the
// one in force selected; Enter on another changes it, Esc keeps it.
func TestApprovalsPicker(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	typeDrawn(m, "/approvals")
	_, cmd := m.Update(key("enter"))
	runMsgs(m, cmd)
	v := m.View()
	if !strings.Contains(v, "› on-request  run sandboxed; the model asks when it needs more  (now)") || !strings.Contains(v, "never       never ask") {
		t.Fatalf("no approvals picker with the current policy selected:\n%s", v)
	}
	press(m, key("esc"))
	if m.comp != nil || f.policy != "" {
		t.Fatalf("Esc did not keep the policy (picker %v, policy %q)", m.comp != nil, f.policy)
	}
	typeDrawn(m, "/approvals")
	_, cmd = m.Update(key("enter"))
	runMsgs(m, cmd)
	press(m, key("down"))
	_, cmd = m.Update(key("enter"))
	out := strings.Join(runMsgs(m, cmd), "\n")
	if f.policy != "never" || !strings.Contains(out, "approval policy is now never") {
		t.Fatalf("the picker set %q: %q", f.policy, out)
	}
}

// /resume without an argument is a picker of the workspace's sessions;
// Enter resumes the chosen one.
func TestResumePicker(t *testing.T) {
	f := &resumeFake{fakeBackend: newFake()}
	m := newTestModel(f)
	typeDrawn(m, "/resume")
	_, cmd := m.Update(key("enter"))
	runMsgs(m, cmd)
	if v := m.View(); !strings.Contains(v, "› 019aaaaa-0000  2026-11-27 10:00  fix the parser") || !strings.Contains(v, "019bbbbb-0000  2026-11-26 09:00  add tests") {
		t.Fatalf("no session picker:\n%s", v)
	}
	press(m, key("down"))
	_, cmd = m.Update(key("enter"))
	runMsgs(m, cmd)
	if f.resumed != "019bbbbb-0000-7000-8000-000000000000" {
		t.Fatalf("resumed %q", f.resumed)
	}
}

type resumeFake struct {
	*fakeBackend
	resumed string
}

func (f *resumeFake) Sessions() ([]SessionSummary, error) {
	return []SessionSummary{{ID: "019aaaaa-0000-7000-8000-000000000000", Started: "2026-11-27 10:00", Preview: "fix the parser"},
		{ID: "019bbbbb-0000-7000-8000-000000000000", Started: "2026-11-26 09:00", Preview: "add tests"}}, nil
}

func (f *resumeFake) Resume(_ context.Context, id string) (string, error) {
	f.resumed = id
	return "", nil
}
