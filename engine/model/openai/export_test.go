package openai

import (
	"net/http"
	"time"

	"github.com/docket-engine/docket/engine/model/retry"
)

// Options only the tests use: they replace the provider's HTTP client,
// environment, retry policy and clock.

// WithHTTPClient replaces the HTTP client (default: a plain *http.Client
// without an overall timeout, since streams are bounded by the idle timeout).
func WithHTTPClient(c *http.Client) Option { return func(p *Provider) { p.http = c } }

// WithGetenv replaces os.Getenv for reading env_key.
func WithGetenv(f func(string) string) Option { return func(p *Provider) { p.getenv = f } }

// WithRetryPolicy replaces the retry policy; MaxAttempts is still taken from
// request_max_retries when that is set.
func WithRetryPolicy(rp retry.Policy) Option { return func(p *Provider) { p.retry = rp } }

// WithClock replaces time.Now for Retry-After HTTP-dates.
func WithClock(now func() time.Time) Option { return func(p *Provider) { p.now = now } }
