package openai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/docket-engine/docket/engine/model/openai"
)

// TestProviderHeadersAndQueryParamsReachTheServer: Codex's http_headers,
// env_http_headers and query_params (Azure's api-version) are on every
// request; a header whose variable is unset is not sent.
func TestProviderHeadersAndQueryParamsReachTheServer(t *testing.T) {
	var got *http.Request
	srv, _ := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		got = r
		okTurn(t, w)
	})
	p, _ := newProvider(t, srv, "", func(c *openai.ProviderConfig) {
		c.HTTPHeaders = map[string]string{"X-Title": "codex"}
		c.EnvHTTPHeaders = map[string]string{"X-Org": "FAKE_KEY", "X-Unset": "NO_SUCH_VAR"}
		c.QueryParams = map[string]string{"api-version": "2025-04-01-preview"}
	})
	if _, err := p.Respond(context.Background(), baseRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if got.Header.Get("X-Title") != "codex" || got.Header.Get("X-Org") != "sk-test" {
		t.Errorf("headers %v", got.Header)
	}
	if _, ok := got.Header["X-Unset"]; ok {
		t.Error("a header whose variable is unset was sent")
	}
	if v := got.URL.Query().Get("api-version"); v != "2025-04-01-preview" {
		t.Errorf("api-version = %q in %s", v, got.URL)
	}
}

// TestStreamMaxRetriesIsItsOwnBudget: a stream cut after the request was
// accepted is retried stream_max_retries times, however many request
// retries are allowed, and the other way round.
func TestStreamMaxRetriesIsItsOwnBudget(t *testing.T) {
	for _, tc := range []struct {
		name             string
		request, stream  int
		cutStream        bool
		wantRequestsSeen int
	}{
		{"streams cut: stream budget", 5, 1, true, 2},
		{"requests refused: request budget", 1, 5, false, 2},
		{"no stream retries", 3, 0, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
				if !tc.cutStream {
					apiError(w, 500, "server_error", "", "no")
					return
				}
				s := newSSE(t, w)
				s.event("response.created", map[string]any{"response": fullResponse("resp_c", "in_progress", nil, nil)})
			})
			p, _ := newProvider(t, srv, "", func(c *openai.ProviderConfig) {
				c.RequestMaxRetries, c.StreamMaxRetries = &tc.request, &tc.stream
			})
			if _, err := p.Respond(context.Background(), baseRequest(), nil); err == nil {
				t.Fatal("want an error")
			}
			if h.count() != tc.wantRequestsSeen {
				t.Errorf("%d requests, want %d", h.count(), tc.wantRequestsSeen)
			}
		})
	}
}
