package mcpserve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheckListenAddr: loopback addresses only, unless allowed.
func TestCheckListenAddr(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		allow   bool
		wantErr string
	}{
		{"127.0.0.1:8765", false, ""},
		{"127.0.0.2:0", false, ""},
		{"[::1]:0", false, ""},
		{"localhost:0", false, ""},
		{"0.0.0.0:8765", false, "not a loopback address"},
		{":8765", false, "not a loopback address"},
		{"[::]:0", false, "not a loopback address"},
		{"192.168.1.5:80", false, "not a loopback address"},
		{"example.com:80", false, "not a loopback address"},
		{"0.0.0.0:8765", true, ""},
		{"127.0.0.1", false, "want HOST:PORT"},
	} {
		err := CheckListenAddr(tc.addr, tc.allow)
		if tc.wantErr == "" && err != nil {
			t.Errorf("%s (allow %v): %v", tc.addr, tc.allow, err)
		}
		if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s (allow %v): error %v, want %q", tc.addr, tc.allow, err, tc.wantErr)
		}
	}
}

// TestRequireBearer: only the exact token passes, over a real HTTP server.
func TestRequireBearer(t *testing.T) {
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if len(token) != 64 {
		t.Fatalf("token %q: want 64 hex digits", token)
	}
	srv := httptest.NewServer(requireBearer(token, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("in"))
	})))
	defer srv.Close()
	for _, tc := range []struct {
		name, header string
		want         int
	}{
		{"the token", "Bearer " + token, http.StatusOK},
		{"no header", "", http.StatusUnauthorized},
		{"a wrong token of the same length", "Bearer " + strings.Repeat("a", len(token)), http.StatusUnauthorized},
		{"a prefix of the token", "Bearer " + token[:10], http.StatusUnauthorized},
		{"the token with more after it", "Bearer " + token + "x", http.StatusUnauthorized},
		{"another scheme", "Basic " + token, http.StatusUnauthorized},
		{"an empty bearer", "Bearer ", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL, nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if tc.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge: %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestHandlerNeedsAToken: an HTTP endpoint without a token is refused.
func TestHandlerNeedsAToken(t *testing.T) {
	if _, err := New(Options{Opener: nil}); err == nil {
		t.Fatal("New without an Opener succeeded")
	}
	s, err := New(Options{Opener: noOpener{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Handler(""); err == nil {
		t.Fatal("Handler with no token succeeded")
	}
}
