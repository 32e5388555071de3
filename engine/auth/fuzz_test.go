package auth

import "testing"

// FuzzParseCredentials: any auth.json content is loaded or refused, never a panic.
func FuzzParseCredentials(f *testing.F) {
	f.Add([]byte(`{"client_id":"c","token_url":"https://a/t","access_token":"a","refresh_token":"r","expiry":"2030-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"access_token":"a","expiry":"not a time"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseCredentials("auth.json", data)
		if err == nil && c.AccessToken == "" {
			t.Errorf("accepted credentials without an access token: %q", data)
		}
	})
}
