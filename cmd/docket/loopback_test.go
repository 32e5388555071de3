package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// loopbackServer starts a real HTTP server on loopback that answers
// "served HOST" with the host the request named, closed when the test
// ends, and returns its port and a way to close it sooner (a replay with
// the server gone).
func loopbackServer(t *testing.T) (port string, closeNow func()) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "served "+r.Host) }))
	t.Cleanup(srv.Close) // Close may be called twice
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return port, srv.Close
}
