package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/mcp/internal/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerLog records the headers of every request a handler saw.
type headerLog struct {
	mu   sync.Mutex
	seen []http.Header
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Clone())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// values returns the distinct values header name had across requests, and
// how many requests came.
func (l *headerLog) values(name string) ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, h := range l.seen {
		v := h.Get(name)
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, len(l.seen)
}

// startEverythingHTTP runs the npm everything server in its streamable
// HTTP mode on a free port and returns its base URL once it listens.
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(npmServer(t, "mcp-server-everything"), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	// The server says on stderr when it listens; that line, not a sleep,
	// is the readiness signal.
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- nil
				for sc.Scan() { // keep draining so the server never blocks
				}
				return
			}
		}
		ready <- fmt.Errorf("the everything server ended before listening: %s", strings.Join(lines, "\n"))
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the everything server did not listen within 60s")
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// recordingProxy is a loopback reverse proxy to target that records the
// headers of every request.
func recordingProxy(t *testing.T, target string) (*httptest.Server, *headerLog) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // stream SSE responses as they come
	log := &headerLog{}
	srv := httptest.NewServer(log.wrap(rp))
	t.Cleanup(srv.Close)
	return srv, log
}

func TestRemoteEverythingServerOverStreamableHTTP(t *testing.T) {
	proxy, log := recordingProxy(t, startEverythingHTTP(t))
	cfg := ServerConfig{
		URL:               proxy.URL + "/mcp",
		BearerTokenEnvVar: "EVERYTHING_TOKEN",
		HTTPHeaders:       map[string]string{"X-Docket-Static": "static-${TEAM}"},
		EnvHTTPHeaders:    map[string]string{"X-Docket-From-Env": "HEADER_VALUE", "X-Docket-Unset": "NOT_SET_ANYWHERE"},
		StartupTimeoutSec: 60,
	}
	environ := []string{"EVERYTHING_TOKEN=tok-123", "HEADER_VALUE=from-env", "TEAM=core"}
	m := mustStart(t, map[string]ServerConfig{"remote": cfg}, Options{Environ: environ})

	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Qualified)
	}
	for _, want := range []string{"mcp__remote__echo", "mcp__remote__get_sum"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %q lack %s", names, want)
		}
	}
	res, err := m.Call(context.Background(), "remote", "echo", json.RawMessage(`{"message":"over http"}`))
	if err != nil || res.Text != "Echo: over http" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	st := m.Status()[0]
	if st.State != StateRunning || st.URL != cfg.URL || !slices.Equal(st.Command, []string{cfg.URL}) {
		t.Errorf("status = %+v", st)
	}
	for _, h := range []struct{ name, want string }{
		{"Authorization", "Bearer tok-123"},
		{"X-Docket-Static", "static-core"},
		{"X-Docket-From-Env", "from-env"},
		{"X-Docket-Unset", ""},
	} {
		got, n := log.values(h.name)
		if n < 3 || !slices.Equal(got, []string{h.want}) {
			t.Errorf("%s over %d requests = %q, want %q on every one", h.name, n, got, h.want)
		}
	}
}

func TestRemoteInProcessGoSDKServer(t *testing.T) {
	srv := mcptest.NewServer()
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	log := &headerLog{}
	ts := httptest.NewServer(log.wrap(handler))
	t.Cleanup(ts.Close)

	m := mustStart(t, map[string]ServerConfig{"inproc": {URL: ts.URL, BearerTokenEnvVar: "TOK"}}, Options{Environ: []string{"TOK=abc"}})
	res, err := m.Call(context.Background(), "inproc", mcptest.EchoTool, json.RawMessage(`{"text":"hi"}`))
	if err != nil || res.Text != "echo: hi" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	if got, _ := log.values("Authorization"); !slices.Equal(got, []string{"Bearer abc"}) {
		t.Errorf("Authorization = %q", got)
	}
}

func TestRemoteServerThatCannotStartFails(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	for _, tc := range []struct {
		name string
		cfg  ServerConfig
		env  []string
		want string
	}{
		{"bearer variable unset", ServerConfig{URL: "http://127.0.0.1:1/mcp", BearerTokenEnvVar: "MISSING_TOKEN"}, nil,
			"mcp_servers.r.bearer_token_env_var: MISSING_TOKEN is not set"},
		{"nothing listens", ServerConfig{URL: deadURL + "/mcp", StartupTimeoutSec: 30}, nil, "initialize " + deadURL + "/mcp"},
		{"unset variable in the url", ServerConfig{URL: "http://${HOST_VAR}/mcp"}, nil, "mcp_servers.r.url: ${HOST_VAR}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := startManager(t, map[string]ServerConfig{"r": tc.cfg}, Options{Environ: tc.env})
			var se *ServerError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start = %v; want a ServerError saying %q", err, tc.want)
			}
			if st := m.Status()[0]; st.State != StateFailed || !strings.Contains(st.Error, tc.want) {
				t.Errorf("status = %+v", st)
			}
			if _, err := m.Call(context.Background(), "r", "echo", nil); !errors.Is(err, ErrServerUnavailable) && !errors.Is(err, ErrUnknownTool) {
				t.Errorf("call to a failed remote server = %v", err)
			}
		})
	}
}

func TestServerIsLocalOrRemote(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  ServerConfig
		want string // "" means valid
	}{
		{"local", ServerConfig{Command: "srv"}, ""},
		{"remote", ServerConfig{URL: "https://mcp.example.com/mcp", BearerTokenEnvVar: "T", HTTPHeaders: map[string]string{"X": "y"}}, ""},
		{"neither", ServerConfig{}, "mcp_servers.s.command: missing"},
		{"both", ServerConfig{Command: "srv", URL: "http://x/mcp"}, "not both"},
		{"not http", ServerConfig{URL: "ftp://x/mcp"}, "not an http(s) URL"},
		{"remote with args", ServerConfig{URL: "http://x/mcp", Args: []string{"a"}}, "for a local server"},
		{"remote sandboxed", ServerConfig{URL: "http://x/mcp", Sandbox: true}, "for a local server"},
		{"local with a bearer token", ServerConfig{Command: "srv", BearerTokenEnvVar: "T"}, "for a remote server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate("s")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v; want ErrInvalidConfig saying %q", err, tc.want)
			}
		})
	}
}

// sessionKiller answers 404 to requests of sessions it was told to end, as
// a server that dropped its session does (MCP streamable HTTP §2.5.3).
type sessionKiller struct {
	mu    sync.Mutex
	ids   []string // sessions seen, in order
	ended map[string]bool
}

func (k *sessionKiller) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		k.mu.Lock()
		ended := k.ended[id]
		k.mu.Unlock()
		if ended {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		h.ServeHTTP(&sessionRecorder{ResponseWriter: w, k: k}, r)
	})
}

func (k *sessionKiller) endAll() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, id := range k.ids {
		k.ended[id] = true
	}
}

func (k *sessionKiller) sessions() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.ids)
}

type sessionRecorder struct {
	http.ResponseWriter
	k *sessionKiller
}

func (r *sessionRecorder) WriteHeader(code int) {
	r.note()
	r.ResponseWriter.WriteHeader(code)
}

func (r *sessionRecorder) Write(b []byte) (int, error) {
	r.note()
	return r.ResponseWriter.Write(b)
}

// note records the session the response names.
func (r *sessionRecorder) note() {
	if id := r.Header().Get("Mcp-Session-Id"); id != "" {
		r.k.mu.Lock()
		if !slices.Contains(r.k.ids, id) {
			r.k.ids = append(r.k.ids, id)
		}
		r.k.mu.Unlock()
	}
}

func (r *sessionRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// TestARemoteSessionThatEndsIsRestartedLikeAnExitedServer: the server drops
// the session; the call in flight fails as "exited", the next call opens a
// new session, and status counts one restart.
func TestARemoteSessionThatEndsIsRestartedLikeAnExitedServer(t *testing.T) {
	srv := mcptest.NewServer()
	k := &sessionKiller{ended: map[string]bool{}}
	ts := httptest.NewServer(k.wrap(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)))
	t.Cleanup(ts.Close)
	m := mustStart(t, map[string]ServerConfig{"r": {URL: ts.URL}}, Options{})
	ctx := context.Background()
	if _, err := m.Call(ctx, "r", mcptest.EchoTool, json.RawMessage(`{"text":"one"}`)); err != nil {
		t.Fatalf("first call: %v", err)
	}
	k.endAll()
	_, err := m.Call(ctx, "r", mcptest.EchoTool, json.RawMessage(`{"text":"two"}`))
	if !errors.Is(err, ErrServerExited) || !strings.Contains(err.Error(), "the connection to "+ts.URL+" ended") {
		t.Fatalf("call after the session ended = %v; want ErrServerExited naming the connection", err)
	}
	res, err := m.Call(ctx, "r", mcptest.EchoTool, json.RawMessage(`{"text":"three"}`))
	if err != nil || res.Text != "echo: three" {
		t.Fatalf("call after the restart = %+v, %v", res, err)
	}
	if st := m.Status()[0]; st.State != StateRunning || st.Restarts != 1 || k.sessions() != 2 {
		t.Errorf("status = %+v, sessions %d; want running after one restart, two sessions", st, k.sessions())
	}
}
