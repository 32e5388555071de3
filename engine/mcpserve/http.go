package mcpserve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where the streamable HTTP endpoint is served.
const HTTPPath = "/mcp"

// IdleSessionTimeout closes an HTTP client's session (and its journal,
// processes and sandbox servers) after this long without a request: a
// client that went away without ending its session must not hold them for
// the server's lifetime. Its next request starts a new session.
const IdleSessionTimeout = time.Hour

// NewToken returns a fresh bearer token: 32 random bytes, hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// CheckListenAddr refuses an address that is not a loopback one (an IP
// literal in 127.0.0.0/8 or ::1, or localhost) unless allowed: the server
// runs commands, and its token travels in clear text over plain HTTP.
func CheckListenAddr(addr string, allowNonLoopback bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT, e.g. 127.0.0.1:8765: %w", addr, err)
	}
	if allowNonLoopback {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--http %q: %q is not a loopback address; Docket serves plain HTTP with a bearer token, "+
			"so it listens on 127.0.0.1, ::1 or localhost only (--allow-non-loopback overrides this)", addr, host)
	}
	return nil
}

// requireBearer serves next only to requests that carry the token
// (compared in constant time); others get 401.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="docket mcp-server"`)
			http.Error(w, "docket mcp-server: missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Handler is the streamable HTTP endpoint behind the bearer token.
func (s *Server) Handler(token string) (http.Handler, error) {
	if token == "" {
		return nil, errors.New("mcpserve: the HTTP endpoint needs a bearer token")
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: IdleSessionTimeout})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, requireBearer(token, h))
	return mux, nil
}

// ServeHTTP serves the endpoint on ln until ctx is done, then shuts the
// listener down and closes every client's session.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	h, err := s.Handler(token)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		// Streams held open by clients do not end on their own: close them.
		if serr := hs.Shutdown(sctx); serr != nil {
			_ = hs.Close() // the shutdown's error is the one to report
			err = serr
		}
		cancel()
		// Serve returns http.ErrServerClosed once Shutdown or Close ran;
		// anything else is worth reporting.
		if serveErr := <-errc; err == nil {
			err = serveErr
		}
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, s.Close())
}
