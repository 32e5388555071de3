package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
)

// TestTheEndOfOneListenerLeavesTheOthersConnections serves one proxy on
// two listeners, as a session's proxy serves two parallel calls: the end
// of one call's listener must not cut the other call's open tunnel.
func TestTheEndOfOneListenerLeavesTheOthersConnections(t *testing.T) {
	h := startProxy(t, "full", nil)
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	_, port, _ := net.SplitHostPort(echo.Addr().String())

	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	octx, ocancel := context.WithCancel(WithCallID(context.Background(), "call_2"))
	odone := make(chan error, 1)
	go func() { odone <- h.proxy.Serve(octx, other) }()

	conn, err := net.Dial("tcp", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT allowed.test:%s HTTP/1.1\r\nHost: allowed.test:%s\r\n\r\n", port, port)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	roundTrip := func(msg string) string {
		if _, err := io.WriteString(conn, msg); err != nil {
			return "write: " + err.Error()
		}
		buf := make([]byte, len(msg))
		if _, err := io.ReadFull(br, buf); err != nil {
			return "read: " + err.Error()
		}
		return string(buf)
	}
	if got := roundTrip("ping"); got != "ping" {
		t.Fatalf("through the tunnel: %q", got)
	}
	ocancel()
	if err := <-odone; err != nil {
		t.Fatalf("the other listener's Serve: %v", err)
	}
	if got := roundTrip("pong"); got != "pong" {
		t.Fatalf("the tunnel after the other listener ended: %q", got)
	}
}
