package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnusableCallIdsThroughTheBinary: an empty call_id with an approved
// escalation and a call_id given twice must run nothing, reach the model
// as errors, leave the session able to go on, and audit and replay.
func TestUnusableCallIdsThroughTheBinary(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	outside, err := os.MkdirTemp("/var/tmp", "docket-callids-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	call := func(id, file, extra string) string {
		return fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["touch",%q]%s}}`, id, file, extra)
	}
	escalate := `,"sandbox_permissions":"require_escalated","justification":"needed"`
	lines := []string{
		`{"output":[` + call("", filepath.Join(outside, "empty"), escalate) + `]}`,
		`{"output":[` + call("d", filepath.Join(ws, "d1"), "") + `,` + call("d", filepath.Join(ws, "d2"), "") + `,` + call("ok", filepath.Join(ws, "ok"), "") + `]}`,
		`{"output":[{"type":"message","content":"finished"}]}`}
	script := writeScript(t, lines...)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "workspace-write", "-a", "on-request",
		"--decisions", "approved", "--model-script", script, "go")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "finished" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{filepath.Join(outside, "empty"), filepath.Join(ws, "d1"), filepath.Join(ws, "d2")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused call ran: %s exists", p)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
		t.Errorf("the valid call did not run: %v", err)
	}
	if !strings.Contains(r.stderr, "refused tool call 1 of the model's response: it has no call_id") {
		t.Errorf("human output does not say a call was refused:\n%s", r.stderr)
	}

	r = docket(t, nil, "audit", "--home", home, "last", "--json")
	if r.code != 0 {
		t.Fatalf("audit: exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Calls []struct {
			CallID     string   `json:"call_id"`
			Outcome    string   `json:"outcome"`
			FinalState string   `json:"final_state"`
			Command    []string `json:"command"`
			Refused    *struct {
				Position int    `json:"position"`
				Reason   string `json:"reason"`
			} `json:"refused"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("audit json: %v\n%s", err, r.stdout)
	}
	var got []string
	for _, c := range rep.Calls {
		s := fmt.Sprintf("%q %s %s", c.CallID, c.Outcome, c.FinalState)
		if c.Refused != nil {
			s += fmt.Sprintf(" @%d %s", c.Refused.Position, filepath.Base(c.Command[len(c.Command)-1]))
		}
		got = append(got, s)
	}
	want := []string{`"" invalid refused @0 empty`, `"d" invalid refused @0 d1`, `"d" invalid refused @1 d2`, `"ok" completed done`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r = docket(t, nil, "audit", "--home", home, "last")
	if r.code != 0 || !strings.Contains(r.stdout, "(no id, tool call 1 of its response)") || strings.Count(r.stdout, "REFUSED") != 3 {
		t.Fatalf("text audit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = docket(t, nil, "replay", "--home", home, "last")
	if r.code != 0 {
		t.Fatalf("replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The session can go on (the script model skips the lines the journal
	// already holds answers for).
	script2 := writeScript(t, append(lines, `{"output":[{"type":"message","content":"again"}]}`)...)
	r = docket(t, nil, "resume", "--home", home, "--model-script", script2, "last", "more")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "again" {
		t.Fatalf("resume: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	r = docket(t, nil, "replay", "--home", home, "last")
	if r.code != 0 {
		t.Fatalf("replay after resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
