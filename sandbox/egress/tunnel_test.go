package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/net/proxy"
)

// tlsUpstream is a loopback HTTPS server.
func tlsUpstream(t *testing.T) string {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls host=%s", r.Host)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return port
}

// connectThen sends CONNECT host and, when it is accepted, a TLS
// handshake naming sni; it returns the CONNECT status and the TLS error.
func connectThen(t *testing.T, proxyAddr, target, sni string) (string, error) {
	t.Helper()
	conn, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		return resp.Status, nil
	}
	tc := tls.Client(conn, &tls.Config{ServerName: sni, InsecureSkipVerify: true}) //nolint:gosec // the test server's certificate is self-signed
	if err := tc.Handshake(); err != nil {
		return resp.Status, err
	}
	fmt.Fprintf(tc, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", sni)
	b, _ := io.ReadAll(tc)
	if !strings.Contains(string(b), "tls host=") {
		return resp.Status, fmt.Errorf("no answer through the tunnel: %q", b)
	}
	return resp.Status, nil
}

func TestConnectChecksTheTLSServerName(t *testing.T) {
	port := tlsUpstream(t)
	h := startProxy(t, "full", nil)

	// The server takes any server name: a tunnel that did not check would
	// carry a hello for evil.test to it (domain fronting).
	raw, err := tls.Dial("tcp", "127.0.0.1:"+port, &tls.Config{ServerName: "evil.test", InsecureSkipVerify: true}) //nolint:gosec // self-signed test server
	if err != nil {
		t.Fatalf("the upstream refuses a foreign SNI by itself, so the test proves nothing: %v", err)
	}
	raw.Close()
	status, err := connectThen(t, h.addr, "allowed.test:"+port, "allowed.test")
	if err != nil || !strings.HasPrefix(status, "200") {
		t.Fatalf("matching SNI: %s %v", status, err)
	}
	if ev := h.rec.nth(t, 1); !ev.Allowed || ev.SNI != "allowed.test" || ev.Protocol != ProtoConnect || ev.Port == 0 {
		t.Fatalf("event = %+v", ev)
	}
	status, err = connectThen(t, h.addr, "allowed.test:"+port, "evil.test")
	if err == nil {
		t.Fatalf("an SNI that differs from the CONNECT host got through (%s)", status)
	}
	if ev := h.rec.nth(t, 2); ev.Allowed || !strings.Contains(ev.Rule, `"evil.test" differs`) {
		t.Fatalf("event = %+v", ev)
	}
	// The same name, spelt differently, is the same host.
	if _, err = connectThen(t, h.addr, "ALLOWED.test.:"+port, "allowed.test"); err != nil {
		t.Fatalf("a differently spelt same name: %v", err)
	}
	for _, target := range []string{"127.0.0.1:" + port, "[::1]:" + port, "denied.test:" + port, "allowed.test:0", "allowed.test"} {
		if status, _ := connectThen(t, h.addr, target, "allowed.test"); !strings.HasPrefix(status, "403") && !strings.HasPrefix(status, "400") {
			t.Errorf("CONNECT %s: %s, want refused", target, status)
		}
	}
}

func TestAWholeHTTPSRequestThroughTheProxy(t *testing.T) {
	port := tlsUpstream(t)
	h := startProxy(t, "full", nil)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(h.url), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed test server
	code, body, err := get(c, "https://allowed.test:"+port+"/")
	if err != nil || code != 200 || !strings.Contains(body, "tls host=allowed.test") {
		t.Fatalf("https through the proxy: %d %q %v", code, body, err)
	}
}

func TestSOCKS5ByNameOnly(t *testing.T) {
	_, port, hits := upstream(t)
	h := startProxy(t, "full", nil)
	d, err := proxy.SOCKS5("tcp", h.addr, nil, proxy.Direct)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{DialContext: d.(proxy.ContextDialer).DialContext, DisableKeepAlives: true}}
	code, body, err := get(c, "http://allowed.test:"+port+"/")
	if err != nil || code != 200 || !strings.Contains(body, "host=allowed.test") {
		t.Fatalf("SOCKS5 to an allowed name: %d %q %v", code, body, err)
	}
	if ev := h.rec.nth(t, 1); !ev.Allowed || ev.Protocol != ProtoSOCKS5 || ev.Host != "allowed.test" {
		t.Fatalf("event = %+v", ev)
	}
	before := hits.Load()
	for i, target := range []string{"127.0.0.1:" + port, "denied.test:" + port, "a.wild.test:" + port} {
		if _, err := d.(proxy.ContextDialer).DialContext(context.Background(), "tcp", target); err == nil {
			t.Errorf("SOCKS5 to %s was let through", target)
		}
		if ev := h.rec.nth(t, i+2); ev.Allowed {
			t.Errorf("event for %s = %+v", target, ev)
		}
	}
	if hits.Load() != before {
		t.Fatalf("a refused SOCKS request reached the server")
	}
}

func TestSOCKS5OffAndLimited(t *testing.T) {
	_, port, _ := upstream(t)
	for _, tc := range []struct {
		name  string
		mode  string
		tweak func(*Options)
		rule  string
	}{
		{"enable_socks5 = false", "full", func(o *Options) { o.NoSOCKS5 = true }, "SOCKS5 is off"},
		{"limited", "limited", nil, "limited"},
	} {
		h := startProxy(t, tc.mode, tc.tweak)
		d, _ := proxy.SOCKS5("tcp", h.addr, nil, proxy.Direct)
		if _, err := d.Dial("tcp", "allowed.test:"+port); err == nil {
			t.Errorf("%s: SOCKS5 let through", tc.name)
		}
		if ev := h.rec.nth(t, 1); ev.Allowed || !strings.Contains(ev.Rule, tc.rule) {
			t.Errorf("%s: event = %+v", tc.name, ev)
		}
	}
}

func TestCurlThroughTheProxy(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	_, port, _ := upstream(t)
	h := startProxy(t, "full", nil)
	run := func(args ...string) (string, error) {
		out, err := exec.Command(curl, append([]string{"-sS", "--max-time", "20", "--noproxy", ""}, args...)...).CombinedOutput()
		return string(out), err
	}
	// curl resolves allowed.test itself only without a proxy: with one,
	// the name goes to the proxy (HTTP, socks5h) and the proxy resolves.
	if out, err := run("-x", "http://"+h.addr, "http://allowed.test:"+port+"/"); err != nil || !strings.Contains(out, "host=allowed.test") {
		t.Fatalf("curl -x http: %q %v", out, err)
	}
	if out, err := run("-x", "socks5h://"+h.addr, "http://allowed.test:"+port+"/"); err != nil || !strings.Contains(out, "host=allowed.test") {
		t.Fatalf("curl -x socks5h: %q %v", out, err)
	}
	if out, err := run("-f", "-x", "http://"+h.addr, "http://denied.test:"+port+"/"); err == nil {
		t.Fatalf("curl to a denied host: %q", out)
	}
	// socks5 (not socks5h) makes curl resolve the name and send an IP.
	if out, err := run("-x", "socks5://"+h.addr, "http://localhost:"+port+"/"); err == nil {
		t.Fatalf("curl socks5 by IP: %q", out)
	}
}
