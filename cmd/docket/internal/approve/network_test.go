package approve

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// A network question offers the host's fate only: once, the session,
// always, deny; no feedback to the model and no abort (a running command
// waits on it), and "p" needs no proposed prefix rule.
func TestANetworkQuestionOffersTheHostsAnswers(t *testing.T) {
	req := engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "c1", Kind: events.ApprovalNetwork, Command: []string{"curl", "x"}, Cwd: "/w"},
		Network: &engine.NetworkQuestion{Host: "pypi.org", Port: 443, Protocol: "http-connect", Profile: "dev"}}
	var keys []string
	for _, c := range Choices(req) {
		keys = append(keys, c.Key)
	}
	if got := strings.Join(keys, ""); got != "yspn" {
		t.Fatalf("keys %q, want yspn", got)
	}
	cases := []struct {
		key  string
		want events.ReviewDecision
		ok   bool
	}{
		{"y", events.Approved, true},
		{"s", events.ApprovedForSession, true},
		{"p", events.ApprovedExecpolicyAmendment, true},
		{"n", events.Denied, true},
		{"f", "", false},
		{"a", "", false},
	}
	for _, tc := range cases {
		ans, ok := AnswerFor(req, tc.key, "")
		if ok != tc.ok || ok && (ans.Decision != tc.want || ans.Source != events.SourceUser) {
			t.Errorf("key %s: %+v %v, want %s %v", tc.key, ans, ok, tc.want, tc.ok)
		}
	}
	if line := choices(req); !strings.Contains(line, "[p] always allow pypi.org") || !strings.HasSuffix(line, "answer (y/s/p/n): ") {
		t.Errorf("the line prompt: %q", line)
	}
	if got := pleaseAnswer(req); got != "please answer y, s, p or n" {
		t.Errorf("after a wrong key: %q", got)
	}
	text := Describe(req, false)
	if !strings.Contains(text, "network: pypi.org:443 (http-connect), not covered by permission profile dev") || !strings.Contains(text, "(network, ") {
		t.Fatalf("the prompt:\n%s", text)
	}
}

// A host holding control characters (a SOCKS5 name is any bytes the
// sandboxed command sent) is shown escaped in the choices too, so it
// cannot redraw the line that says what "always" allows.
func TestANetworkQuestionsChoicesShowTheHostSafe(t *testing.T) {
	host := "pypi.org\r\x1b[2Kevil"
	req := engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "c1", Kind: events.ApprovalNetwork, Command: []string{"curl", "x"}, Cwd: "/w"},
		Network: &engine.NetworkQuestion{Host: host, Port: 443, Protocol: "socks5", Profile: "dev"}}
	line := choices(req)
	if strings.ContainsAny(line, "\r\x1b") {
		t.Fatalf("the choices carry the host's control characters raw: %q", line)
	}
	if !strings.Contains(line, "always allow pypi.org") || !strings.Contains(line, "evil") {
		t.Fatalf("the choices do not name the host: %q", line)
	}
}
