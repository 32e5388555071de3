package tui

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// A network question in the chat UI: the overlay names the host and the
// profile, offers once, session, always and deny, and "p" answers always.
func TestANetworkQuestionInTheOverlay(t *testing.T) {
	m := newTestModel(newFake())
	reply := make(chan engine.Answer, 1)
	req := engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "c3", RequestID: "c3/network/1", Kind: events.ApprovalNetwork,
		Phase: events.PhaseInitial, Command: []string{"pip", "install", "requests"}, Cwd: "/work/ws"},
		Network: &engine.NetworkQuestion{Host: "pypi.org", Port: 443, Protocol: "http-connect", Profile: "dev"}}
	m.Update(approvalMsg{req: req, reply: reply})
	view := m.View()
	for _, want := range []string{"network: pypi.org:443 (http-connect)", "[p] always", "[n] deny"} {
		if !strings.Contains(view, want) {
			t.Errorf("the overlay lacks %q:\n%s", want, view)
		}
	}
	m.Update(key("a"))
	if len(reply) != 0 || len(m.overlays) != 1 {
		t.Fatalf("a key a network question does not offer answered it")
	}
	m.Update(key("p"))
	select {
	case ans := <-reply:
		if ans.Decision != events.ApprovedExecpolicyAmendment || ans.Source != events.SourceUser {
			t.Fatalf("answer %+v", ans)
		}
	default:
		t.Fatal("no answer was sent")
	}
}

// The /permissions picker names the paths the profile hides: a file's
// name, which a sandboxed command may have chosen, reaches the terminal
// with its escapes shown, not sent.
func TestThePermissionsPickerShowsAHiddenPathSafe(t *testing.T) {
	m := newTestModel(newFake())
	_, printed, _ := runAll(m.permissionsPicker(permissionsMsg{Profile: "dev", Why: "w", SandboxMode: "workspace-write",
		Hidden: []string{"/w/\x1b]52;c;eA==\a.pem"}, Profiles: []string{"dev"}}))
	out := strings.Join(printed, "\n")
	if strings.Contains(out, "\x1b]52") || !strings.Contains(out, `hides /w/\e]52;c;eA==`) {
		t.Errorf("the hidden path is not shown safe: %q", out)
	}
}
