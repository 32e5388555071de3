package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// otelcolBin builds (or finds cached) the test collector with
// scripts/build-otelcol.sh.
func otelcolBin(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "..", "..", "scripts", "build-otelcol.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/build-otelcol.sh: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// freePort reserves a loopback port and releases it for the caller.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// collector is a running test collector: OTLP gRPC and HTTP on loopback,
// every span written as OTLP JSON lines to out.
type collector struct {
	grpc, http int
	out        string
	cmd        *exec.Cmd
	done       chan error
}

func startCollector(t *testing.T, bin string, grpcPort, httpPort int) *collector {
	t.Helper()
	dir := t.TempDir()
	c := &collector{grpc: grpcPort, http: httpPort, out: filepath.Join(dir, "traces.jsonl"), done: make(chan error, 1)}
	conf := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`, grpcPort, httpPort, c.out)
	cf := filepath.Join(dir, "otelcol.yaml")
	writeFile(t, cf, conf)
	c.cmd = exec.Command(bin, "--config", cf)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "Everything is ready") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
		c.done <- c.cmd.Wait()
	}()
	t.Cleanup(func() { c.stop(t) })
	if !<-ready {
		t.Fatalf("the collector exited before it was ready")
	}
	return c
}

// stop shuts the collector down gracefully (its file exporter flushes) and
// returns the spans it wrote.
func (c *collector) stop(t *testing.T) []otlpSpan {
	t.Helper()
	if c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		select {
		case <-c.done:
		case <-ctx.Done():
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	}
	return readSpans(t, c.out)
}

// otlpSpan is one span as the file exporter writes it (OTLP JSON).
type otlpSpan struct {
	TraceID      string    `json:"traceId"`
	SpanID       string    `json:"spanId"`
	ParentSpanID string    `json:"parentSpanId"`
	Name         string    `json:"name"`
	Start        string    `json:"startTimeUnixNano"`
	End          string    `json:"endTimeUnixNano"`
	Attributes   []otlpKV  `json:"attributes"`
	Events       []otlpEvt `json:"events"`
}

type otlpKV struct {
	Key   string `json:"key"`
	Value struct {
		String *string          `json:"stringValue"`
		Bool   *bool            `json:"boolValue"`
		Int    *string          `json:"intValue"`
		Array  *json.RawMessage `json:"arrayValue"`
	} `json:"value"`
}

type otlpEvt struct {
	Name       string   `json:"name"`
	Attributes []otlpKV `json:"attributes"`
}

func attr(kvs []otlpKV, key string) string {
	for _, kv := range kvs {
		if kv.Key != key {
			continue
		}
		switch v := kv.Value; {
		case v.String != nil:
			return *v.String
		case v.Bool != nil:
			return fmt.Sprint(*v.Bool)
		case v.Int != nil:
			return *v.Int
		case v.Array != nil:
			return string(*v.Array)
		}
	}
	return ""
}

func readSpans(t *testing.T, path string) []otlpSpan {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []otlpSpan
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

// TestSessionsReachARealCollector: a session run while the collector is
// down finishes normally and says how to send its telemetry later; a
// session run while it is up arrives as a turn span with its calls as
// children, carrying the audit's attributes (an unsandboxed retry with its
// why-line and the approval's who); docket export then re-sends both
// sessions over OTLP/HTTP with the same ids.
func TestSessionsReachARealCollector(t *testing.T) {
	bin := otelcolBin(t)
	grpcPort, httpPort := freePort(t), freePort(t)
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

	col := startCollector(t, bin, grpcPort, httpPort)
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
	spans := col.stop(t)
	// The documented fleet query finds the unsandboxed run, once per copy.
	jq := exec.Command("jq", "-c", "-f", filepath.Join("..", "..", "..", "scripts", "unsandboxed-runs.jq"), col.out)
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

	bySpan := map[string][]otlpSpan{}
	sessions := map[string]bool{}
	for _, s := range spans {
		bySpan[s.SpanID] = append(bySpan[s.SpanID], s)
		sessions[attr(s.Attributes, "docket.session.id")] = true
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
	turns := map[string]otlpSpan{} // by trace
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
			t.Errorf("call span %s is not a child of its turn", attr(s.Attributes, "docket.call.id"))
		}
		switch attr(s.Attributes, "docket.call.id") {
		case "k1":
			if attr(s.Attributes, "docket.ran_unsandboxed") != "false" || !strings.Contains(attr(s.Attributes, "docket.sandbox.layers"), "landlock") ||
				attr(s.Attributes, "docket.outcome") != "completed" {
				t.Errorf("k1: %+v", s.Attributes)
			}
		case "u1":
			why := attr(s.Attributes, "docket.why")
			if attr(s.Attributes, "docket.ran_unsandboxed") != "true" || !strings.Contains(why, "sandbox denied it") || attr(s.Attributes, "docket.sandbox.mode") != "none" {
				t.Errorf("u1: ran_unsandboxed %q, why %q, sandbox %q", attr(s.Attributes, "docket.ran_unsandboxed"), why, attr(s.Attributes, "docket.sandbox.mode"))
			}
			var causes, who []string
			for _, e := range s.Events {
				switch e.Name {
				case "docket.transition":
					causes = append(causes, attr(e.Attributes, "docket.cause")+"/"+attr(e.Attributes, "docket.decision_source"))
				case "docket.approval":
					who = append(who, attr(e.Attributes, "docket.approval.who")+"@"+attr(e.Attributes, "docket.approval.at"))
				}
			}
			if !strings.Contains(strings.Join(causes, " "), "sandbox_denial/engine") || !strings.Contains(strings.Join(causes, " "), "user_approved/") || len(who) != 1 || strings.HasPrefix(who[0], "@") {
				t.Errorf("u1 events: transitions %v, approvals %v", causes, who)
			}
		case "s1":
			if cmd := attr(s.Attributes, "docket.command"); strings.Contains(cmd, "hunter2") || !strings.Contains(cmd, "API_TOKEN=<redacted>") {
				t.Errorf("s1's secret reached the collector: %q", cmd)
			}
		default:
			t.Errorf("unexpected call span %+v", s)
		}
	}
}
