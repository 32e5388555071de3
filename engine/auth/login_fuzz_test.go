package auth

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events/safetext"
)

// FuzzDeviceAuthAnswer has an authorization server answer the device-code
// request with any status and body. Login fails with an error naming the
// endpoint, or shows the user where to sign in and waits (the test's
// deadline ends the wait); whatever it writes for the user is text a
// terminal shows as it is (no escape sequence from the server reaches it).
func FuzzDeviceAuthAnswer(f *testing.F) {
	f.Add(200, []byte(`{"device_code":"d","user_code":"ABCD-EFGH","verification_uri":"https://x.test/device","expires_in":600,"interval":1}`))
	f.Add(200, []byte(`{"device_code":"d","user_code":"AB\u001b[2KCD","verification_uri":"https://x.test/\u001b]8;;evil\u0007","verification_uri_complete":"\u202e","interval":1}`))
	f.Add(200, []byte(`{"device_code":"d","user_code":"u","verification_uri":"v","interval":-1}`))
	f.Add(200, []byte(`{"device_code":"d","user_code":"u","verification_uri":"v","interval":9223372036}`))
	f.Add(200, []byte(`{"device_code":"d","user_code":"u","verification_uri":"v","expires_in":-5,"interval":1}`))
	f.Add(400, []byte(`{"error":"invalid_client","error_description":"no\u001b[31m"}`))
	f.Add(200, []byte(`device_code=d&user_code=u&verification_uri=v`))
	f.Add(500, []byte(``))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 200 || status > 599 {
			status = 200
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, DeviceAuthPath) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write(body)
				return
			}
			http.Error(w, `{"error":"authorization_pending"}`, http.StatusBadRequest)
		}))
		defer srv.Close()
		cfg := Config{ClientID: "c", DeviceAuthURL: srv.URL + DeviceAuthPath, TokenURL: srv.URL + TokenPath, HTTPClient: srv.Client()}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		var out bytes.Buffer
		_, err := Login(ctx, cfg, &out)
		if err == nil {
			t.Fatal("signed in without a token")
		}
		if s := out.String(); safetext.Text(s) != s {
			t.Fatalf("the server's text reached the terminal as it is: %q", s)
		}
		if out.Len() == 0 && !strings.Contains(err.Error(), cfg.DeviceAuthURL) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a refused answer's error does not name the endpoint: %v", err)
		}
		if msg := err.Error(); safetext.Line(msg) != msg && !strings.Contains(msg, "\n") {
			t.Fatalf("the error carries the server's control characters: %q", msg)
		}
	})
}
