// Package openai is the network model provider: it speaks the OpenAI
// Responses API (or Chat Completions, for servers that only have that) over
// server-sent events through github.com/openai/openai-go/v3, and retries
// transient failures itself so that one model.Response carries the number of
// HTTP attempts it took.
package openai

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/retry"
)

// Wire APIs a provider can speak.
const (
	WireResponses = "responses"
	WireChat      = "chat"
)

// Defaults for the built-in provider and unset fields.
const (
	DefaultBaseURL             = "https://api.openai.com/v1"
	DefaultEnvKey              = "OPENAI_API_KEY"
	DefaultRequestMaxRetries   = 2 // three attempts in all
	DefaultStreamIdleTimeoutMs = 300_000
)

// ProviderConfig is one [model_providers.NAME] table, plus the model name.
type ProviderConfig struct {
	// Name identifies the provider in errors; the CLI sets it from the table key.
	Name string `toml:"name"`
	// BaseURL is the API root, e.g. "https://api.openai.com/v1"; empty means DefaultBaseURL.
	BaseURL string `toml:"base_url"`
	// EnvKey names the environment variable holding the API key; empty means
	// the server needs no key unless a token source is given.
	EnvKey string `toml:"env_key"`
	// WireAPI is "responses" (default) or "chat".
	WireAPI string `toml:"wire_api"`
	// RequestMaxRetries is how many times a failed request is retried; nil
	// means DefaultRequestMaxRetries.
	RequestMaxRetries *int `toml:"request_max_retries"`
	// StreamIdleTimeoutMs ends a stream that stays silent this long; 0 means
	// DefaultStreamIdleTimeoutMs.
	StreamIdleTimeoutMs int64 `toml:"stream_idle_timeout_ms"`
	// Model is used when a request names none; the CLI fills it from the
	// top-level `model` key, so it is not read from the provider table.
	Model string `toml:"-"`
	// Reasoning is sent with every request; the CLI fills it from the
	// top-level model_reasoning_* and model_verbosity keys.
	Reasoning Reasoning `toml:"-"`
	// StreamMaxRetries is how many times a stream that failed after the
	// request was accepted is retried; nil means as many as requests.
	StreamMaxRetries *int `toml:"stream_max_retries"`
	// HTTPHeaders are sent with every request; EnvHTTPHeaders name the
	// variable holding a header's value (a header whose variable is unset
	// or empty is not sent).
	HTTPHeaders    map[string]string `toml:"http_headers"`
	EnvHTTPHeaders map[string]string `toml:"env_http_headers"`
	// QueryParams are added to every request's URL (Azure's api-version).
	QueryParams map[string]string `toml:"query_params"`
}

// DefaultConfig is the built-in "openai" provider.
func DefaultConfig() ProviderConfig {
	return ProviderConfig{Name: "openai", BaseURL: DefaultBaseURL, EnvKey: DefaultEnvKey, WireAPI: WireResponses}
}

// Option adjusts a Provider at construction.
type Option func(*Provider)

// WithTokenSource supplies a bearer token (e.g. from `docket login`), asked
// before every attempt so it can be refreshed. A key found in the provider's
// env_key variable wins over it.
func WithTokenSource(f func() (string, error)) Option { return func(p *Provider) { p.token = f } }

// Provider implements model.Model against an OpenAI-compatible server.
type Provider struct {
	cfg    ProviderConfig
	idle   time.Duration
	http   *http.Client
	token  func() (string, error)
	getenv func(string) string
	retry  retry.Policy
	now    func() time.Time
	// requestTries and streamRetries are the retry budgets of a request
	// refused and of a stream broken after it was accepted.
	requestTries, streamRetries int

	responses responses.ResponseService
	chat      sdk.ChatCompletionService
}

var _ model.Model = (*Provider)(nil)

// New checks cfg, fills its defaults and builds a provider.
func New(cfg ProviderConfig, opts ...Option) (*Provider, error) {
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	where := "model_providers." + cfg.Name
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s.base_url: %q is not an http(s) URL", where, cfg.BaseURL)
	}
	switch cfg.WireAPI {
	case "":
		cfg.WireAPI = WireResponses
	case WireResponses, WireChat:
	default:
		return nil, fmt.Errorf("%s.wire_api: unknown value %q (want %q or %q)", where, cfg.WireAPI, WireResponses, WireChat)
	}
	retries := DefaultRequestMaxRetries
	if cfg.RequestMaxRetries != nil {
		retries = *cfg.RequestMaxRetries
		if retries < 0 || retries > 100 {
			return nil, fmt.Errorf("%s.request_max_retries: %d is out of range 0..100", where, retries)
		}
	}
	streamRetries := retries
	if cfg.StreamMaxRetries != nil {
		streamRetries = *cfg.StreamMaxRetries
		if streamRetries < 0 || streamRetries > 100 {
			return nil, fmt.Errorf("%s.stream_max_retries: %d is out of range 0..100", where, streamRetries)
		}
	}
	if cfg.StreamIdleTimeoutMs < 0 {
		return nil, fmt.Errorf("%s.stream_idle_timeout_ms: %d is negative", where, cfg.StreamIdleTimeoutMs)
	}
	if cfg.StreamIdleTimeoutMs == 0 {
		cfg.StreamIdleTimeoutMs = DefaultStreamIdleTimeoutMs
	}
	p := &Provider{
		cfg:           cfg,
		requestTries:  retries,
		streamRetries: streamRetries,
		idle:          time.Duration(cfg.StreamIdleTimeoutMs) * time.Millisecond,
		getenv:        os.Getenv,
		retry:         retry.Default(),
		now:           time.Now,
	}
	for _, o := range opts {
		o(p)
	}
	p.retry.MaxAttempts = retries + streamRetries + 1
	if p.http == nil {
		p.http = &http.Client{}
	}
	// Built without openai.NewClient so that no OPENAI_* variable is read
	// behind the config's back; retries are ours alone.
	base := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(p.http),
		option.WithMaxRetries(0),
		option.WithMiddleware(limitResponses(cfg.Name, MaxResponseBytes)),
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.HTTPHeaders)) {
		base = append(base, option.WithHeader(k, cfg.HTTPHeaders[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.EnvHTTPHeaders)) {
		if v := p.getenv(cfg.EnvHTTPHeaders[k]); v != "" {
			base = append(base, option.WithHeader(k, v))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.QueryParams)) {
		base = append(base, option.WithQueryAdd(k, cfg.QueryParams[k]))
	}
	p.responses = responses.NewResponseService(base...)
	p.chat = sdk.NewChatCompletionService(base...)
	return p, nil
}

// Config returns the provider's configuration with defaults filled in.
func (p *Provider) Config() ProviderConfig { return p.cfg }

// Respond sends req, streaming deltas to onDelta (which may be nil), and
// retries transient failures. Response.Attempts counts the HTTP attempts.
func (p *Provider) Respond(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Response, error) {
	if req.Model == "" {
		req.Model = p.cfg.Model
	}
	if req.Model == "" {
		return model.Response{}, fmt.Errorf("model provider %s: no model named (set `model` or -m)", p.cfg.Name)
	}
	if onDelta == nil {
		onDelta = func(model.Delta) {}
	}
	var send func(ctx context.Context, key string) (model.Response, error)
	switch p.cfg.WireAPI {
	case WireChat:
		params, err := p.chatParams(req)
		if err != nil {
			return model.Response{}, err
		}
		p.cfg.Reasoning.applyChat(&params)
		send = func(ctx context.Context, key string) (model.Response, error) {
			return p.chatAttempt(ctx, params, req.Tools, key, onDelta)
		}
	default:
		params, err := responsesParams(req)
		if err != nil {
			return model.Response{}, fmt.Errorf("model provider %s: %w", p.cfg.Name, err)
		}
		p.cfg.Reasoning.applyResponses(&params)
		send = func(ctx context.Context, key string) (model.Response, error) {
			return p.responsesAttempt(ctx, params, key, onDelta)
		}
	}
	var resp model.Response
	// request_max_retries and stream_max_retries are separate budgets, as
	// Codex keeps them: a failure past its own budget ends the retries.
	var requestFails, streamFails int
	attempts, err := p.retry.Do(ctx, func(ctx context.Context, attempt int) error {
		key, err := p.credential()
		if err != nil {
			return err
		}
		r, err := send(ctx, key)
		if err != nil {
			var se *StreamError
			var te *retry.TransientError
			if errors.As(err, &se) {
				streamFails++
			} else {
				requestFails++
			}
			if errors.As(err, &te) && (streamFails > p.streamRetries || requestFails > p.requestTries) {
				return &retry.ExhaustedError{Attempts: attempt, Err: te.Err}
			}
			return err
		}
		resp = r
		return nil
	})
	if err != nil {
		return model.Response{}, err
	}
	resp.Attempts = attempts
	return resp, nil
}

// CheckCredentials reports whether a request could carry a credential
// now: the env_key variable is set, or a login token is there. A keyless
// provider (no env_key) always passes. Resume calls it before it writes
// anything, so a missing key leaves the session as it was.
func (p *Provider) CheckCredentials() error {
	_, err := p.credential()
	return err
}

// credential picks the bearer token: the env_key variable, else the token
// source, else none (a keyless local server).
func (p *Provider) credential() (string, error) {
	if p.cfg.EnvKey != "" {
		if k := p.getenv(p.cfg.EnvKey); k != "" {
			return k, nil
		}
	}
	if p.token != nil {
		t, err := p.token()
		if err != nil {
			return "", fmt.Errorf("model provider %s: login token: %w", p.cfg.Name, err)
		}
		return t, nil
	}
	if p.cfg.EnvKey != "" {
		return "", fmt.Errorf("model provider %s: %w: set %s or run `docket login`", p.cfg.Name, ErrNoCredentials, p.cfg.EnvKey)
	}
	return "", nil
}

// requestOptions are the per-attempt options: the credential.
func requestOptions(key string) []option.RequestOption {
	if key == "" {
		return nil
	}
	return []option.RequestOption{option.WithAPIKey(key)}
}
