package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deviceServer approves (or denies) on the first poll.
func deviceServer(t *testing.T, answer string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	var srv *httptest.Server
	mux.HandleFunc("POST /oauth/device/code", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, map[string]any{"device_code": "d", "user_code": "ABCD-EFGH", "verification_uri": srv.URL + "/device", "expires_in": 600, "interval": 1})
	})
	mux.HandleFunc("POST /oauth/token", func(w http.ResponseWriter, r *http.Request) {
		if answer != "" {
			reply(w, 400, map[string]any{"error": answer})
			return
		}
		reply(w, 200, map[string]any{"access_token": "at", "refresh_token": "rt", "token_type": "Bearer", "expires_in": 3600})
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func runDocket(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestLoginSavesTokensAndLogoutRemovesThem(t *testing.T) {
	t.Parallel()
	srv := deviceServer(t, "")
	home := t.TempDir()
	code, out, errOut := runDocket("login", "--home", home, "--issuer", srv.URL, "--client-id", "test")
	if code != exitOK {
		t.Fatalf("login exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "ABCD-EFGH") || !strings.Contains(errOut, srv.URL+"/device") {
		t.Errorf("stderr %q does not show the code and URL", errOut)
	}
	path := filepath.Join(home, "auth.json")
	if !strings.Contains(out, path) {
		t.Errorf("stdout %q does not name %s", out, path)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v mode %v", err, fi)
	}
	code, out, _ = runDocket("logout", "--home", home)
	if code != exitOK || !strings.Contains(out, "Logged out") {
		t.Errorf("logout exit %d: %q", code, out)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("auth.json still there: %v", err)
	}
	code, out, _ = runDocket("logout", "--home", home)
	if code != exitOK || !strings.Contains(out, "Not logged in") {
		t.Errorf("second logout exit %d: %q", code, out)
	}
}

func TestLoginDeniedExitsOne(t *testing.T) {
	t.Parallel()
	srv := deviceServer(t, "access_denied")
	home := t.TempDir()
	code, _, errOut := runDocket("login", "--home", home, "--device-auth-url", srv.URL+"/oauth/device/code", "--token-url", srv.URL+"/oauth/token")
	if code != exitFailed || !strings.Contains(errOut, "denied") {
		t.Errorf("exit %d stderr %q, want 1 and a denial message", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, "auth.json")); !os.IsNotExist(err) {
		t.Errorf("auth.json written after a denial")
	}
}

func TestLoginFlagErrorsAreUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"issuer with explicit endpoints", []string{"--issuer", "https://a.example", "--token-url", "https://a.example/t"}, "cannot be combined"},
		{"one explicit endpoint", []string{"--token-url", "https://a.example/t"}, "go together"},
		{"plain http to a remote host", []string{"--issuer", "http://a.example"}, "must use https"},
		{"empty client id", []string{"--client-id", ""}, "--client-id is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runDocket(append([]string{"login", "--home", t.TempDir()}, tc.args...)...)
			if code != exitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d stderr %q, want 2 and %q", code, errOut, tc.want)
			}
		})
	}
}
