// Package otelcoltest runs the real test OpenTelemetry Collector
// (tools/otelcol, built by scripts/build-otelcol.sh) for docket's CLI
// tests: OTLP gRPC and HTTP receivers on loopback, every span written as
// OTLP JSON lines to a file the test reads back. It lives outside the test
// files so that the e2e package and the pty-driven chat tests in
// cmd/docket share one collector harness; only tests import it.
package otelcoltest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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

// Bin is the test collector: the binary $DOCKET_TEST_OTELCOL names (make
// builds it once before the tests), or else the one scripts/build-otelcol.sh
// of the module the test runs in builds or finds cached.
func Bin(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("DOCKET_TEST_OTELCOL"); bin != "" {
		return bin
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "build-otelcol.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/build-otelcol.sh: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// moduleRoot is the nearest directory at or above the working directory
// (a test's package directory) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("otelcoltest: no go.mod at or above the working directory")
		}
		dir = up
	}
}

// FreePort reserves a loopback port and releases it for the caller.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// Collector is a running test collector: OTLP gRPC and HTTP on loopback,
// every span written as OTLP JSON lines to Out.
type Collector struct {
	GRPC, HTTP int
	// Out is the file exporter's output (one OTLP JSON request a line).
	Out string
	cmd *exec.Cmd
	// done is closed once the collector process has been reaped.
	done chan struct{}
}

// Start runs the collector binary bin on the two ports and waits until it
// says it is ready; the test's cleanup stops it.
func Start(t testing.TB, bin string, grpcPort, httpPort int) *Collector {
	t.Helper()
	dir := t.TempDir()
	c := &Collector{GRPC: grpcPort, HTTP: httpPort, Out: filepath.Join(dir, "traces.jsonl"), done: make(chan struct{})}
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
`, grpcPort, httpPort, c.Out)
	cf := filepath.Join(dir, "otelcol.yaml")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
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
		// Its exit status is not what a test asserts: Stop reads back
		// what it wrote.
		_ = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() { c.Stop(t) })
	// The bound only ends a hang; how long start-up took is not asserted.
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("the collector exited before it was ready")
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("the collector did not say it was ready")
	}
	return c
}

// Stop shuts the collector down gracefully (its file exporter flushes) and
// returns the spans it wrote. Stopping twice returns the same spans.
func (c *Collector) Stop(t testing.TB) []Span {
	t.Helper()
	// done, not cmd.ProcessState, says whether it still runs: Wait writes
	// the latter on another goroutine.
	select {
	case <-c.done:
	default:
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
	return ReadSpans(t, c.Out)
}

// Span is one span as the file exporter writes it (OTLP JSON).
type Span struct {
	TraceID      string  `json:"traceId"`
	SpanID       string  `json:"spanId"`
	ParentSpanID string  `json:"parentSpanId"`
	Name         string  `json:"name"`
	Start        string  `json:"startTimeUnixNano"`
	End          string  `json:"endTimeUnixNano"`
	Attributes   []KV    `json:"attributes"`
	Events       []Event `json:"events"`
}

// KV is one OTLP attribute; exactly one of its values is set.
type KV struct {
	Key   string `json:"key"`
	Value struct {
		String *string          `json:"stringValue"`
		Bool   *bool            `json:"boolValue"`
		Int    *string          `json:"intValue"`
		Array  *json.RawMessage `json:"arrayValue"`
	} `json:"value"`
}

// Event is one span event.
type Event struct {
	Name       string `json:"name"`
	Attributes []KV   `json:"attributes"`
}

// Attr is the value of key among kvs as text ("" when absent).
func Attr(kvs []KV, key string) string {
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

// ReadSpans reads the spans of a file exporter's output; a file not
// written yet holds none.
func ReadSpans(t testing.TB, path string) []Span {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []Span
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []Span `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}
