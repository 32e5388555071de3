package egress

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"testing"
)

// BenchmarkConnectionSetup measures one new connection and one small GET
// against a loopback server: directly, through the proxy by plain HTTP,
// and through a CONNECT tunnel (plain bytes inside, so the SNI check's
// wait is the handshake peek only). The difference is the proxy's setup
// overhead per connection.
func BenchmarkConnectionSetup(b *testing.B) {
	srv, port, _ := upstream(b)
	h := startProxy(b, "full", nil)
	direct := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	proxied := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(h.url), DisableKeepAlives: true}}
	b.Run("direct", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			mustGet(b, direct, srv.URL+"/")
		}
	})
	b.Run("proxy-http", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			mustGet(b, proxied, "http://allowed.test:"+port+"/")
		}
	})
	b.Run("proxy-connect", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c, err := net.Dial("tcp", h.addr)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(c, "CONNECT allowed.test:%s HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n", port)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
			if err != nil || resp.StatusCode != 200 {
				b.Fatal(resp, err)
			}
			inner, err := http.ReadResponse(br, nil)
			if err != nil || inner.StatusCode != 200 {
				b.Fatal(inner, err)
			}
			inner.Body.Close()
			c.Close()
		}
	})
}

func mustGet(b *testing.B, c *http.Client, u string) {
	resp, err := c.Get(u)
	if err != nil || resp.StatusCode != 200 {
		b.Fatal(resp, err)
	}
	resp.Body.Close()
}
