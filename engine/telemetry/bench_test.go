package telemetry

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/events"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// callRecords appends the records of one sandboxed call that ran and
// completed, as the engine writes them, and commits once (the engine's
// write-ahead commit).
func callRecords(b *testing.B, log engine.Log, i int) {
	id := fmt.Sprintf("c%d", i)
	now := time.Now()
	plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{"/w"}}
	for _, body := range []any{
		events.Transition{CallID: id, From: "wantsApproval", Event: "run_sandboxed", To: "sandboxed", Cause: "known_safe", Reason: "known-safe command"},
		events.ExecStarted{CallID: id, Attempt: 1, Tool: "shell", Argv: []string{"bash", "-lc", "go test ./... --token=abc"}, Cwd: "/w", Sandbox: plan},
	} {
		if _, err := log.Append(now, id, body); err != nil {
			b.Fatal(err)
		}
	}
	if err := log.Commit(); err != nil {
		b.Fatal(err)
	}
	for _, body := range []any{
		events.ExecOutcome{CallID: id, Attempt: 1, ExitCode: 0, DurationNs: 1e6, Output: "ok\n", Layers: []string{"landlock:v7", "seccomp"}},
		events.Transition{CallID: id, From: "sandboxed", Event: "finish", To: "done", Cause: "completed", Reason: "exit 0"},
		events.ToolOutput{CallID: id, Type: events.ItemFunctionCallOutput, Output: "Exit code: 0\nok", Success: true},
	} {
		if _, err := log.Append(now, id, body); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCollector starts the test collector (scripts/build-otelcol.sh) on
// a loopback port and returns its OTLP/gRPC endpoint.
func benchCollector(b *testing.B) string {
	b.Helper()
	out, err := exec.Command(filepath.Join("..", "..", "..", "..", "scripts", "build-otelcol.sh")).Output()
	if err != nil {
		b.Fatalf("build-otelcol.sh: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := b.TempDir()
	conf := filepath.Join(dir, "c.yaml")
	text := fmt.Sprintf("receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 127.0.0.1:%d\nexporters:\n  file:\n    path: %s\n"+
		"service:\n  telemetry:\n    metrics:\n      level: none\n  pipelines:\n    traces:\n      receivers: [otlp]\n      exporters: [file]\n", port, filepath.Join(dir, "t.jsonl"))
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(strings.TrimSpace(string(out)), "--config", conf)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "Everything is ready") {
			go func() { // drain
				for sc.Scan() {
				}
			}()
			return fmt.Sprintf("http://127.0.0.1:%d", port)
		}
	}
	b.Fatal("the collector exited before it was ready")
	return ""
}

// BenchmarkCallOverhead measures what exporting adds to one tool call on
// the engine's side (its appends and the write-ahead commit, through Tap
// over an in-memory log), with the collector up, down (nothing listens),
// and slow (an OTLP/HTTP endpoint that answers after 200 ms), against no
// export at all. Dropped telemetry per call is reported as drops/op.
func BenchmarkCallOverhead(b *testing.B) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer slow.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	downAddr := "http://" + l.Addr().String()
	l.Close()
	cases := []struct {
		name     string
		endpoint func() string
		protocol string
	}{
		{"off", nil, ""},
		{"collector-up", func() string { return benchCollector(b) }, ProtocolGRPC},
		{"collector-down", func() string { return downAddr }, ProtocolGRPC},
		{"collector-slow", func() string { return slow.URL }, ProtocolHTTP},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			mem := &enginetest.MemLog{}
			var log engine.Log = mem
			var tap *Tap
			var p *Provider
			if tc.endpoint != nil {
				var err error
				p, err = NewProvider(context.Background(), Settings{Endpoint: tc.endpoint(), Protocol: tc.protocol, Argv: ArgvRedacted}, true)
				if err != nil {
					b.Fatal(err)
				}
				bl := NewBuilder(p.Tracer(), ArgvRedacted, 0)
				tap = NewTap(mem, bl, 0)
				log = tap
			}
			if _, err := log.Append(time.Now(), "", events.SessionStarted{Version: events.FormatVersion, SessionID: "bench"}); err != nil {
				b.Fatal(err)
			}
			if _, err := log.Append(time.Now(), "", events.UserTurn{TurnID: "turn-1", Text: "go"}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				callRecords(b, log, i)
			}
			if err := log.Commit(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if tap != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				dropped, _ := tap.Close(ctx)
				_ = p.Shutdown(ctx)
				cancel()
				b.ReportMetric(float64(dropped)/float64(b.N), "drops/op")
			}
		})
	}
}

// BenchmarkSpansPerCall measures the background side: turning one call's
// committed records into its span (the audit of the call, attributes,
// events), exported to nowhere. Its inverse is the call rate a live
// session can sustain before the tap's queue starts dropping.
func BenchmarkSpansPerCall(b *testing.B) {
	mem := &enginetest.MemLog{}
	if _, err := mem.Append(time.Now(), "", events.SessionStarted{Version: events.FormatVersion, SessionID: "bench"}); err != nil {
		b.Fatal(err)
	}
	if _, err := mem.Append(time.Now(), "", events.UserTurn{TurnID: "turn-1", Text: "go"}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		callRecords(b, mem, i)
	}
	recs := mem.Records()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithIDGenerator(idGenerator{}))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	bl := NewBuilder(tp.Tracer("bench"), ArgvRedacted, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for _, r := range recs {
		bl.Record(r)
	}
	bl.End(true)
}
