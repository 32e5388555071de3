package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestPlainHTTPIsDecidedByTheNameInTheURI(t *testing.T) {
	_, port, hits := upstream(t)
	h := startProxy(t, "full", nil)
	c := h.client()

	// Without the proxy the command reaches the loopback server directly:
	// the attack the proxy (and the empty namespace) stop.
	code, body, err := get(&http.Client{}, "http://127.0.0.1:"+port+"/")
	if err != nil || code != 200 {
		t.Fatalf("direct request without the proxy: %d %v", code, err)
	}
	hits.Store(0)

	cases := []struct {
		name, url string
		want      int
		rule      string
		allowed   bool
	}{
		{"an exact allow rule", "http://allowed.test:" + port + "/x", 200, `permissions.p.network.domains."allowed.test"`, true},
		{"a trailing dot and upper case", "http://ALLOWED.test.:" + port + "/", 200, `permissions.p.network.domains."allowed.test"`, true},
		{"an IDN in Unicode", "http://bücher.test:" + port + "/", 200, `permissions.p.network.domains."bücher.test"`, true},
		{"a deny rule", "http://denied.test:" + port + "/", 403, `permissions.p.network.domains."denied.test"`, false},
		{"an IP literal", "http://127.0.0.1:" + port + "/", 403, "an IP address", false},
		{"a wildcard rule cannot reach loopback", "http://a.wild.test:" + port + "/", 403, "loopback", false},
		{"a host no rule covers, the person denies", "http://ask.test:" + port + "/", 403, "user: denied", false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := hits.Load()
			code, body, err = get(c, tc.url)
			if err != nil || code != tc.want {
				t.Fatalf("GET %s: %d %q %v, want %d", tc.url, code, body, err, tc.want)
			}
			ev := h.rec.nth(t, i+1)
			if ev.Allowed != tc.allowed || !strings.Contains(ev.Rule, tc.rule) || ev.Protocol != ProtoHTTP || ev.Method != "GET" || ev.CallID != "call_1" {
				t.Fatalf("event = %+v, want allowed=%v rule containing %q", ev, tc.allowed, tc.rule)
			}
			if reached := hits.Load() > before; reached != tc.allowed {
				t.Fatalf("upstream reached = %v, want %v", reached, tc.allowed)
			}
		})
	}
	if h.ask.asked.Load() != 1 {
		t.Errorf("asked %d times, want once (ask.test only)", h.ask.asked.Load())
	}
}

func TestAbsoluteURIToAnotherHostThanTheHostHeader(t *testing.T) {
	_, port, hits := upstream(t)
	h := startProxy(t, "full", nil)
	send := func(uri, hostHeader string) (string, string) {
		conn, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", uri, hostHeader)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b := make([]byte, 512)
		n, _ := resp.Body.Read(b)
		return resp.Status, string(b[:n])
	}
	// The URI names a denied host; the Host header an allowed one.
	if status, _ := send("http://denied.test:"+port+"/", "allowed.test:"+port); !strings.HasPrefix(status, "403") || hits.Load() != 0 {
		t.Fatalf("absolute URI to a denied host: %s, upstream hits %d", status, hits.Load())
	}
	// The URI names an allowed host; the Host header another: the
	// upstream is asked for the URI's host, never the header's.
	status, body := send("http://allowed.test:"+port+"/", "evil.test")
	if !strings.HasPrefix(status, "200") || !strings.Contains(body, "host=allowed.test:"+port) {
		t.Fatalf("allowed URI with a foreign Host header: %s %q", status, body)
	}
	// An origin-form request is not a proxy request.
	if status, _ := send("/", "allowed.test:"+port); !strings.HasPrefix(status, "400") {
		t.Fatalf("origin-form request: %s", status)
	}
}

func TestLimitedModeLetsOnlyReadingMethodsThrough(t *testing.T) {
	_, port, hits := upstream(t)
	h := startProxy(t, "limited", nil)
	c := h.client()
	if code, body, err := get(c, "http://allowed.test:"+port+"/"); err != nil || code != 200 || !strings.Contains(body, "method=GET") {
		t.Fatalf("GET in limited mode: %d %q %v", code, body, err)
	}
	resp, err := c.Post("http://allowed.test:"+port+"/", "text/plain", strings.NewReader("secret"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || hits.Load() != 1 {
		t.Fatalf("POST in limited mode: %d, upstream hits %d", resp.StatusCode, hits.Load())
	}
	if ev := h.rec.nth(t, 2); ev.Allowed || !strings.Contains(ev.Rule, "limited") {
		t.Fatalf("event = %+v", ev)
	}
	if _, _, err := get(c, "https://allowed.test:"+port+"/"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("CONNECT in limited mode: %v", err)
	}
}

// A GET that asks for a protocol upgrade (a WebSocket) would become a
// tunnel both ways: limited mode refuses it before the upstream sees it.
func TestLimitedModeRefusesAnUpgrade(t *testing.T) {
	_, port, hits := upstream(t)
	h := startProxy(t, "limited", nil)
	req, err := http.NewRequest(http.MethodGet, "http://allowed.test:"+port+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	resp, err := h.client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || hits.Load() != 0 {
		t.Fatalf("upgrade in limited mode: %d, upstream hits %d", resp.StatusCode, hits.Load())
	}
	if ev := h.rec.nth(t, 1); ev.Allowed || !strings.Contains(ev.Rule, "upgrade") {
		t.Fatalf("event = %+v", ev)
	}
}

func TestAnsweringForTheSessionAsksOnce(t *testing.T) {
	_, port, _ := upstream(t)
	h := startProxy(t, "full", nil)
	h.ask.answer = AllowSession
	c := h.client()
	for i := 0; i < 3; i++ {
		if code, _, err := get(c, "http://ask.test:"+port+"/"); err != nil || code != 200 {
			t.Fatalf("request %d: %d %v", i, code, err)
		}
	}
	if n := h.ask.asked.Load(); n != 1 {
		t.Fatalf("asked %d times, want 1", n)
	}
	if ev := h.rec.nth(t, 3); !ev.Allowed || ev.Rule != "user: allowed for the session" || ev.Addr != "127.0.0.1:"+port {
		t.Fatalf("third event = %+v", ev)
	}
}

func TestAPersonsAllowNeverReachesAPrivateAddress(t *testing.T) {
	_, port, _ := upstream(t)
	h := startProxy(t, "full", nil)
	h.ask.answer = AllowOnce
	// rebind.test resolves to loopback and a public address: only the
	// public one is dialled (the test network carries it to the server).
	var dialed []string
	h.proxy.opts.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed = append(dialed, addr)
		return dialPublic(ctx, network, addr)
	}
	if code, _, err := get(h.client(), "http://rebind.test:"+port+"/"); err != nil || code != 200 {
		t.Fatalf("rebind.test: %d %v", code, err)
	}
	if len(dialed) != 1 || dialed[0] != public.String()+":"+port {
		t.Fatalf("dialled %v, want only the public address", dialed)
	}
}

func TestNobodyToAskDenies(t *testing.T) {
	_, port, hits := upstream(t)
	h := startProxy(t, "full", func(o *Options) { o.Decider.(*ProfileDecider).Asker = nil })
	if code, _, _ := get(h.client(), "http://ask.test:"+port+"/"); code != 403 || hits.Load() != 0 {
		t.Fatalf("under never: %d, hits %d", code, hits.Load())
	}
	if ev := h.rec.nth(t, 1); ev.Allowed || !strings.Contains(ev.Rule, "never") {
		t.Fatalf("event = %+v", ev)
	}
}

func TestTheRecordIsWrittenBeforeAByteIsForwarded(t *testing.T) {
	_, port, hits := upstream(t)
	var atRecord []int32
	h := startProxy(t, "full", nil)
	h.proxy.opts.Record = func(ev Event) { atRecord = append(atRecord, hits.Load()); h.rec.record(ev) }
	if code, _, err := get(h.client(), "http://allowed.test:"+port+"/"); err != nil || code != 200 {
		t.Fatal(code, err)
	}
	if len(atRecord) != 1 || atRecord[0] != 0 {
		t.Fatalf("upstream hits when each event was recorded: %v, want [0]", atRecord)
	}
}

// A GET, HEAD or OPTIONS may carry a body, and an upstream may read it:
// limited mode's reading methods would carry data out as a POST does.
func TestLimitedModeRefusesAReadingMethodWithABody(t *testing.T) {
	cases := []struct {
		name, method, framing string
		wantBody              bool
	}{
		{"a GET without a body goes through", "GET", "", false},
		{"a GET with Content-Length", "GET", "Content-Length: 6\r\n", true},
		{"a GET with a chunked body", "GET", "Transfer-Encoding: chunked\r\n", true},
		{"a HEAD with Content-Length", "HEAD", "Content-Length: 6\r\n", true},
		{"an OPTIONS with a chunked body", "OPTIONS", "Transfer-Encoding: chunked\r\n", true},
	}
	for _, mode := range []string{"full", "limited"} {
		for _, tc := range cases {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				var got atomic.Value
				got.Store("")
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, _ := io.ReadAll(r.Body)
					got.Store(string(b))
				}))
				defer srv.Close()
				_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
				h := startProxy(t, mode, nil)
				conn, err := net.Dial("tcp", h.addr)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				body := ""
				switch {
				case strings.HasPrefix(tc.framing, "Content-Length"):
					body = "secret"
				case tc.framing != "":
					body = "6\r\nsecret\r\n0\r\n\r\n"
				}
				fmt.Fprintf(conn, "%s http://allowed.test:%s/ HTTP/1.1\r\nHost: allowed.test\r\n%sConnection: close\r\n\r\n%s", tc.method, port, tc.framing, body)
				resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: tc.method})
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				// Full mode forwards the body: the leak limited mode must stop.
				refused := mode == "limited" && tc.wantBody
				if refused != (resp.StatusCode == http.StatusForbidden) {
					t.Fatalf("%s: status %d, want refused = %v", tc.name, resp.StatusCode, refused)
				}
				if leaked := got.Load() == "secret"; leaked != (tc.wantBody && !refused) {
					t.Fatalf("upstream read body %q", got.Load())
				}
				if refused {
					if ev := h.rec.nth(t, 1); ev.Allowed || !strings.Contains(ev.Rule, "with a body") {
						t.Fatalf("event = %+v, want a refusal naming the body", ev)
					}
				}
			})
		}
	}
}
