package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/auth"
)

// oauthServer is a fake authorization server: a device endpoint and a token
// endpoint answering device-code polls from a script, and refreshes.
type oauthServer struct {
	t             *testing.T
	srv           *httptest.Server
	mu            sync.Mutex
	polls         []string // scripted answers: an RFC 8628 error code, or "token"
	polled        int
	refresh       []string // refresh tokens presented
	refreshAnswer string   // "" issues a new token, else an error code
}

func newOAuthServer(t *testing.T, polls ...string) *oauthServer {
	o := &oauthServer{t: t, polls: polls}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth/device/code", o.device)
	mux.HandleFunc("POST /oauth/token", o.token)
	o.srv = httptest.NewServer(mux)
	t.Cleanup(o.srv.Close)
	return o
}

func (o *oauthServer) config() auth.Config {
	dev, tok, err := auth.FromIssuer(o.srv.URL)
	if err != nil {
		o.t.Fatal(err)
	}
	return auth.Config{ClientID: "docket-test", DeviceAuthURL: dev, TokenURL: tok, Scopes: auth.DefaultScopes(), HTTPClient: o.srv.Client()}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (o *oauthServer) device(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Form.Get("client_id") != "docket-test" || r.Form.Get("scope") != "openid offline_access" {
		o.t.Errorf("device request form %v", r.Form)
	}
	writeJSON(w, 200, map[string]any{
		"device_code": "dev-123", "user_code": "WDJB-MJHT",
		"verification_uri":          o.srv.URL + "/device",
		"verification_uri_complete": o.srv.URL + "/device?user_code=WDJB-MJHT",
		"expires_in":                600, "interval": 1,
	})
}

func (o *oauthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		o.t.Errorf("token form: %v", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	switch r.Form.Get("grant_type") {
	case "urn:ietf:params:oauth:grant-type:device_code":
		if r.Form.Get("device_code") != "dev-123" || r.Form.Get("client_id") != "docket-test" {
			o.t.Errorf("device poll form %v", r.Form)
		}
		if o.polled >= len(o.polls) {
			o.t.Errorf("poll %d beyond the script", o.polled+1)
			writeJSON(w, 400, map[string]any{"error": "invalid_request"})
			return
		}
		answer := o.polls[o.polled]
		o.polled++
		if answer != "token" {
			writeJSON(w, 400, map[string]any{"error": answer, "error_description": "scripted " + answer})
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "at-1", "refresh_token": "rt-1", "token_type": "Bearer", "expires_in": 3600})
	case "refresh_token":
		o.refresh = append(o.refresh, r.Form.Get("refresh_token"))
		if o.refreshAnswer != "" {
			writeJSON(w, 400, map[string]any{"error": o.refreshAnswer, "error_description": "refresh token revoked"})
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "at-2", "refresh_token": "rt-2", "token_type": "Bearer", "expires_in": 3600})
	default:
		o.t.Errorf("unexpected grant %q", r.Form.Get("grant_type"))
		writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
	}
}

func TestLoginPollsThroughPendingAndSlowDown(t *testing.T) {
	t.Parallel() // real poll intervals: about 8 s (1 s, 1 s, then 1+5 s after slow_down)
	o := newOAuthServer(t, "authorization_pending", "slow_down", "token")
	var out bytes.Buffer
	creds, err := auth.Login(context.Background(), o.config(), &out)
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	if creds.AccessToken != "at-1" || creds.RefreshToken != "rt-1" || creds.TokenType != "Bearer" || creds.Expiry.IsZero() {
		t.Errorf("credentials %+v", creds)
	}
	if creds.ClientID != "docket-test" || creds.TokenURL != o.srv.URL+"/oauth/token" {
		t.Errorf("credentials do not say where to refresh: %+v", creds)
	}
	if o.polled != 3 {
		t.Errorf("polled %d times, want 3", o.polled)
	}
	for _, want := range []string{"WDJB-MJHT", o.srv.URL + "/device", "?user_code=WDJB-MJHT", "Waiting for approval"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output %q lacks %q", out.String(), want)
		}
	}
}

func TestLoginFailures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   string
		sentinel error
		want     string
	}{
		{"expired token", "expired_token", auth.ErrExpiredToken, "expired before the sign-in was approved"},
		{"access denied", "access_denied", auth.ErrAccessDenied, "denied at the verification page"},
		{"other error", "invalid_grant", nil, "refused the sign-in (invalid_grant)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := newOAuthServer(t, tc.answer)
			_, err := auth.Login(context.Background(), o.config(), &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.sentinel)
			}
			var fe *auth.DeviceFlowError
			if !errors.As(err, &fe) || fe.Code != tc.answer {
				t.Errorf("err %v, want a DeviceFlowError %s", err, tc.answer)
			}
		})
	}
}

func TestLoginDeviceEndpointRefusal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 401, map[string]any{"error": "invalid_client", "error_description": "unknown client"})
	}))
	defer srv.Close()
	cfg := auth.Config{ClientID: "x", DeviceAuthURL: srv.URL + "/d", TokenURL: srv.URL + "/t", HTTPClient: srv.Client()}
	_, err := auth.Login(context.Background(), cfg, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), srv.URL+"/d") || !strings.Contains(err.Error(), "unknown client") {
		t.Fatalf("err %v, want the URL and the server's description", err)
	}
}

func TestLoginCancelled(t *testing.T) {
	o := newOAuthServer(t, "authorization_pending", "authorization_pending", "authorization_pending")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := auth.Login(ctx, o.config(), &bytes.Buffer{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://auth.example.com", true},
		{"http://127.0.0.1:8080/x", true},
		{"http://localhost/x", true},
		{"http://[::1]:9/x", true},
		{"http://auth.example.com", false},
		{"ftp://auth.example.com", false},
		{"auth.example.com", false},
		{"", false},
	} {
		if err := auth.CheckURL("issuer", tc.url); (err == nil) != tc.ok {
			t.Errorf("CheckURL(%q) = %v, want ok=%v", tc.url, err, tc.ok)
		}
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestStoreRoundTripIsPrivateAndAtomic(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	s := auth.NewStore(home)
	if _, err := s.Load(); !errors.Is(err, auth.ErrNotLoggedIn) {
		t.Fatalf("Load before login: %v, want ErrNotLoggedIn", err)
	}
	want := auth.Credentials{ClientID: "c", TokenURL: "https://a.example/t", AccessToken: "at", RefreshToken: "rt", TokenType: "Bearer", Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, s.Path()); m != 0o600 {
		t.Errorf("auth.json mode %o, want 600", m)
	}
	if m := mode(t, home); m != 0o700 {
		t.Errorf("home mode %o, want 700", m)
	}
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got.AccessToken != want.AccessToken || got.RefreshToken != want.RefreshToken || !got.Expiry.Equal(want.Expiry) || got.TokenURL != want.TokenURL {
		t.Errorf("loaded %+v, want %+v", got, want)
	}
	entries, _ := os.ReadDir(home)
	if len(entries) != 1 {
		t.Errorf("home holds %d entries, want only auth.json (temp files left?)", len(entries))
	}
	existed, err := s.Delete()
	if err != nil || !existed {
		t.Fatalf("Delete: %v %v", existed, err)
	}
	if existed, err := s.Delete(); err != nil || existed {
		t.Errorf("second Delete: %v %v, want false, nil", existed, err)
	}
}

func TestStoreRejectsBadFilesNamingThem(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"not json", "{nope", "not valid credentials"},
		{"no access token", `{"client_id":"c"}`, "access_token is missing"},
		{"refresh without endpoint", `{"access_token":"a","refresh_token":"r"}`, "token_url and client_id"},
		{"refresh to plain http", `{"access_token":"a","refresh_token":"r","client_id":"c","token_url":"http://evil.example/t"}`, "must use https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			s := auth.NewStore(home)
			if err := os.WriteFile(s.Path(), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load()
			if err == nil || !strings.Contains(err.Error(), s.Path()) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want the path and %q", err, tc.want)
			}
		})
	}
}

func TestTokenSourceRefreshesExpiredTokenAndSavesIt(t *testing.T) {
	o := newOAuthServer(t)
	s := auth.NewStore(t.TempDir())
	old := auth.Credentials{ClientID: "docket-test", TokenURL: o.srv.URL + "/oauth/token", AccessToken: "at-old", RefreshToken: "rt-1", TokenType: "Bearer", Expiry: time.Now().Add(-time.Hour)}
	if err := s.Save(old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.Path(), 0o644); err != nil { // a loosened file is tightened on rewrite
		t.Fatal(err)
	}
	token, err := auth.NewTokenSource(context.Background(), s, o.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		got, err := token()
		if err != nil {
			t.Fatalf("token: %v", err)
		}
		if got != "at-2" {
			t.Errorf("call %d: token %q, want the refreshed at-2", i, got)
		}
	}
	if len(o.refresh) != 1 || o.refresh[0] != "rt-1" {
		t.Errorf("refresh requests %v, want one with rt-1", o.refresh)
	}
	saved, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if saved.AccessToken != "at-2" || saved.RefreshToken != "rt-2" || !saved.Expiry.After(time.Now()) {
		t.Errorf("auth.json holds %+v, want the refreshed token", saved)
	}
	if m := mode(t, s.Path()); m != 0o600 {
		t.Errorf("auth.json mode %o after refresh, want 600", m)
	}
}

func TestTokenSourceUsesAValidTokenAsIs(t *testing.T) {
	o := newOAuthServer(t)
	s := auth.NewStore(t.TempDir())
	if err := s.Save(auth.Credentials{ClientID: "docket-test", TokenURL: o.srv.URL + "/oauth/token", AccessToken: "at-live", RefreshToken: "rt-1", Expiry: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	token, err := auth.NewTokenSource(context.Background(), s, o.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := token(); err != nil || got != "at-live" {
		t.Errorf("token %q %v, want at-live", got, err)
	}
	if len(o.refresh) != 0 {
		t.Errorf("refreshed a valid token")
	}
}

func TestTokenSourceRefreshRefused(t *testing.T) {
	o := newOAuthServer(t)
	o.refreshAnswer = "invalid_grant"
	s := auth.NewStore(t.TempDir())
	if err := s.Save(auth.Credentials{ClientID: "docket-test", TokenURL: o.srv.URL + "/oauth/token", AccessToken: "at-old", RefreshToken: "rt-1", Expiry: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	token, err := auth.NewTokenSource(context.Background(), s, o.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	_, err = token()
	if err == nil || !strings.Contains(err.Error(), "docket login") || !strings.Contains(err.Error(), "refresh token revoked") {
		t.Fatalf("err %v, want advice to log in again and the server's reason", err)
	}
}

func TestTokenSourceWithoutLogin(t *testing.T) {
	if _, err := auth.NewTokenSource(context.Background(), auth.NewStore(t.TempDir()), nil); !errors.Is(err, auth.ErrNotLoggedIn) {
		t.Errorf("err %v, want ErrNotLoggedIn", err)
	}
}
