package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/otelcoltest"
)

// TestSessionsReachARealCollector: a session run while the collector is
// down finishes normally and says how to send its telemetry later; a
// session run while it is up arrives as a turn span with its calls as
// children, carrying the audit's attributes (an unsandboxed retry with its
// why-line and the approval's who); docket export then re-sends both
// sessions over OTLP/HTTP with the same ids.
func TestSessionsReachARealCollector(t *testing.T) {
	t.Parallel()
	bin := otelcoltest.Bin(t)
	grpcPort, httpPort := otelcoltest.FreePort(t), otelcoltest.FreePort(t)
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	// /tmp is not writable in the sandbox, so the touch outside the
	// workspace is denied there and retried without it once approved.
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf("[otel]\nendpoint = \"http://127.0.0.1:%d\"\n"+
		"[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n", grpcPort))
	target := filepath.Join(outside, "made-unsandboxed")
	script := func() string {
		return writeScript(t,
			`{"output":[{"type":"function_call","call_id":"k1","name":"shell","arguments":{"command":["echo","hi"]}},`+
				`{"type":"function_call","call_id":"u1","name":"shell","arguments":{"command":["touch",`+fmt.Sprintf("%q", target)+`]}},`+
				`{"type":"function_call","call_id":"s1","name":"shell","arguments":{"command":["env","API_TOKEN=hunter2hunter2","true"]}}]}`,
			`{"output":[{"type":"message","content":"done"}]}`)
	}
	execSession := func() result {
		return docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "on-failure", "-s", "workspace-write",
			"--model-script", script(), "--decisions", "approved", "go")
	}

	// The collector is down: the session is not held up and says so.
	down := execSession()
	if down.code != 0 {
		t.Fatalf("exec with the collector down: exit %d\n%s", down.code, down.stderr)
	}
	if !strings.Contains(down.stderr, "telemetry for session") || !strings.Contains(down.stderr, "docket export ") {
		t.Errorf("a session whose telemetry could not be sent does not say how to send it:\n%s", down.stderr)
	}
	if err := os.Remove(target); err != nil {
		t.Fatalf("the approved unsandboxed retry did not run: %v", err)
	}

	col := otelcoltest.Start(t, bin, grpcPort, httpPort)
	up := execSession()
	if up.code != 0 || strings.Contains(up.stderr, "telemetry for session") {
		t.Fatalf("exec with the collector up: exit %d\n%s", up.code, up.stderr)
	}
	ids := sessionIDs(t, home)
	if len(ids) != 2 {
		t.Fatalf("sessions %v, want 2", ids)
	}
	// Both sessions again, over OTLP/HTTP: the one the outage missed, and
	// a second copy of the other.
	r := docket(t, nil, "export", "--all", "--since", "1h", "--home", home,
		"-c", fmt.Sprintf(`otel.endpoint="http://127.0.0.1:%d"`, httpPort), "-c", `otel.protocol="http/protobuf"`)
	if r.code != 0 || !strings.Contains(r.stdout, "exported 2 session(s), 8 span(s)") {
		t.Fatalf("export: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	spans := col.Stop(t)
	// The documented fleet query finds the unsandboxed run, once per copy.
	jq := exec.Command("jq", "-c", "-f", filepath.Join("..", "..", "..", "scripts", "unsandboxed-runs.jq"), col.Out)
	jqOut, err := jq.Output()
	if err != nil {
		t.Fatalf("jq (needed for the documented query): %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(jqOut)), "\n")
	if len(lines) != 3 {
		t.Errorf("the unsandboxed-runs query found %d rows, want 3 (u1 of two sessions, one sent twice):\n%s", len(lines), jqOut)
	}
	for _, l := range lines {
		var row struct{ Call, Why, Host string }
		if err := json.Unmarshal([]byte(l), &row); err != nil || row.Call != "u1" || row.Why == "" || row.Host == "" {
			t.Errorf("query row %s: %+v %v", l, row, err)
		}
	}

	bySpan := map[string][]otelcoltest.Span{}
	sessions := map[string]bool{}
	for _, s := range spans {
		bySpan[s.SpanID] = append(bySpan[s.SpanID], s)
		sessions[otelcoltest.Attr(s.Attributes, "docket.session.id")] = true
	}
	// 2 sessions x (1 turn + 3 calls); the live one twice.
	if len(spans) != 12 || len(bySpan) != 8 || len(sessions) != 2 {
		t.Fatalf("%d spans, %d distinct, %d sessions; want 12, 8, 2", len(spans), len(bySpan), len(sessions))
	}
	for id, copies := range bySpan {
		for _, c := range copies[1:] {
			if c.TraceID != copies[0].TraceID || c.ParentSpanID != copies[0].ParentSpanID || c.Start != copies[0].Start || c.End != copies[0].End {
				t.Errorf("span %s was re-sent differently: %+v vs %+v", id, copies[0], c)
			}
		}
	}
	turns := map[string]otelcoltest.Span{} // by trace
	for _, s := range spans {
		if s.Name == "docket.turn" {
			if s.ParentSpanID != "" {
				t.Errorf("a turn span has a parent: %+v", s)
			}
			turns[s.TraceID] = s
		}
	}
	for _, s := range spans {
		if s.Name == "docket.turn" {
			continue
		}
		if turn, ok := turns[s.TraceID]; !ok || s.ParentSpanID != turn.SpanID {
			t.Errorf("call span %s is not a child of its turn", otelcoltest.Attr(s.Attributes, "docket.call.id"))
		}
		switch otelcoltest.Attr(s.Attributes, "docket.call.id") {
		case "k1":
			if otelcoltest.Attr(s.Attributes, "docket.ran_unsandboxed") != "false" || !strings.Contains(otelcoltest.Attr(s.Attributes, "docket.sandbox.layers"), "landlock") ||
				otelcoltest.Attr(s.Attributes, "docket.outcome") != "completed" {
				t.Errorf("k1: %+v", s.Attributes)
			}
		case "u1":
			why := otelcoltest.Attr(s.Attributes, "docket.why")
			if otelcoltest.Attr(s.Attributes, "docket.ran_unsandboxed") != "true" || !strings.Contains(why, "sandbox denied it") || otelcoltest.Attr(s.Attributes, "docket.sandbox.mode") != "none" {
				t.Errorf("u1: ran_unsandboxed %q, why %q, sandbox %q", otelcoltest.Attr(s.Attributes, "docket.ran_unsandboxed"), why, otelcoltest.Attr(s.Attributes, "docket.sandbox.mode"))
			}
			var causes, who []string
			for _, e := range s.Events {
				switch e.Name {
				case "docket.transition":
					causes = append(causes, otelcoltest.Attr(e.Attributes, "docket.cause")+"/"+otelcoltest.Attr(e.Attributes, "docket.decision_source"))
				case "docket.approval":
					who = append(who, otelcoltest.Attr(e.Attributes, "docket.approval.who")+"@"+otelcoltest.Attr(e.Attributes, "docket.approval.at"))
				}
			}
			if !strings.Contains(strings.Join(causes, " "), "sandbox_denial/engine") || !strings.Contains(strings.Join(causes, " "), "user_approved/") || len(who) != 1 || strings.HasPrefix(who[0], "@") {
				t.Errorf("u1 events: transitions %v, approvals %v", causes, who)
			}
		case "s1":
			if cmd := otelcoltest.Attr(s.Attributes, "docket.command"); strings.Contains(cmd, "hunter2") || !strings.Contains(cmd, "API_TOKEN=<redacted>") {
				t.Errorf("s1's secret reached the collector: %q", cmd)
			}
		default:
			t.Errorf("unexpected call span %+v", s)
		}
	}
}
