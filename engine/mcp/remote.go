package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// remoteEndpoint is a remote server's URL and headers after ${VAR}
// expansion and the variables they name are read.
type remoteEndpoint struct {
	url    string
	header http.Header
}

// resolveRemote expands the URL and headers of the remote server name
// against the parent environment. The bearer token's variable must be set;
// an env_http_headers variable that is unset or empty leaves its header
// out, as Codex does.
func (c ServerConfig) resolveRemote(name string, parent []string) (remoteEndpoint, error) {
	lookup := envLookup(parent)
	key := func(k string) string { return fmt.Sprintf("mcp_servers.%s.%s", name, k) }
	u, err := Expand(c.URL, lookup)
	if err != nil {
		return remoteEndpoint{}, fmt.Errorf("%s: %w", key("url"), err)
	}
	h := http.Header{}
	for _, k := range sortedKeys(c.HTTPHeaders) {
		v, err := Expand(c.HTTPHeaders[k], lookup)
		if err != nil {
			return remoteEndpoint{}, fmt.Errorf("%s.%s: %w", key("http_headers"), k, err)
		}
		h.Set(k, v)
	}
	for _, k := range sortedKeys(c.EnvHTTPHeaders) {
		if v, ok := lookup(c.EnvHTTPHeaders[k]); ok && v != "" {
			h.Set(k, v)
		}
	}
	if c.BearerTokenEnvVar != "" {
		tok, ok := lookup(c.BearerTokenEnvVar)
		if !ok || tok == "" {
			return remoteEndpoint{}, fmt.Errorf("%s: %s is not set in the environment", key("bearer_token_env_var"), c.BearerTokenEnvVar)
		}
		h.Set("Authorization", "Bearer "+tok)
	}
	return remoteEndpoint{url: u, header: h}, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	for k, vs := range t.header {
		r.Header[k] = slices.Clone(vs)
	}
	return t.base.RoundTrip(r)
}

// spawnRemote connects to a remote server over streamable HTTP and, when
// list is set, lists its tools, within startup_timeout_sec. The generation
// it returns has no process: it ends when the connection does, and the
// state machine then treats it as an exited server.
func (s *server) spawnRemote(ctx context.Context, list bool) (*generation, []*sdk.Tool, error) {
	ep, err := s.cfg.resolveRemote(s.name, s.m.environ)
	if err != nil {
		return nil, nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout())
	defer cancel()
	base := s.m.opts.HTTPTransport
	if base == nil {
		base = http.DefaultTransport
	}
	tr := &sdk.StreamableClientTransport{
		Endpoint:   ep.url,
		HTTPClient: &http.Client{Transport: &headerTransport{base: base, header: ep.header}},
	}
	sess, err := s.m.client.Connect(sctx, tr, nil)
	if err != nil {
		return nil, nil, remoteStartError(sctx, s.cfg, fmt.Errorf("initialize %s: %w", ep.url, err))
	}
	g := &generation{sess: sess, remote: ep.url, done: make(chan struct{})}
	if !list {
		return g, nil, nil
	}
	tools := []*sdk.Tool{}
	for t, err := range sess.Tools(sctx, nil) {
		if err != nil {
			return g, nil, remoteStartError(sctx, s.cfg, fmt.Errorf("tools/list: %w", err))
		}
		tools = append(tools, t)
	}
	return g, tools, nil
}

func remoteStartError(sctx context.Context, cfg ServerConfig, err error) error {
	if errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within startup_timeout_sec (%s): %w", cfg.StartupTimeout(), err)
	}
	return err
}

// commandLine is what `docket mcp list` shows as the server's command.
func (c ServerConfig) commandLine() []string {
	if c.Remote() {
		return []string{c.URL}
	}
	return append([]string{c.Command}, c.Args...)
}
