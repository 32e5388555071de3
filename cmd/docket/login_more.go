package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/render"
	"github.com/docket-engine/docket/engine/auth"
	"github.com/spf13/cobra"
	"golang.org/x/oauth2"
)

// apiKeyTokenType marks saved credentials that are an API key, not OAuth
// tokens: they are sent as the bearer token and never refreshed.
const apiKeyTokenType = "api_key"

// loginWithAPIKey saves the API key read from stdin to auth.json (0600).
// The key is never an argument: arguments show in ps and shell history.
func loginWithAPIKey(a *app, home string) error {
	if f, ok := a.stdin.(*os.File); ok && render.IsTerminal(f) {
		fmt.Fprint(a.stderr, "Paste the API key and press Enter: ")
	}
	b, err := io.ReadAll(io.LimitReader(a.stdin, 64<<10))
	if err != nil {
		return fmt.Errorf("login: read the API key from stdin: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if key == "" || strings.ContainsAny(key, " \t\n") {
		return usageErrorf("login --with-api-key: no API key on stdin (one line, no spaces): printenv OPENAI_API_KEY | docket login --with-api-key")
	}
	store := auth.NewStore(home)
	if err := store.Save(auth.Credentials{AccessToken: key, TokenType: apiKeyTokenType}); err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("login: %w", err)}
	}
	fmt.Fprintf(a.stdout, "Logged in using an API key (%s); saved to %s (mode 0600)\n", maskKey(key), store.Path())
	return nil
}

// maskKey shows enough of a key to recognise it.
func maskKey(k string) string {
	if len(k) <= 12 {
		return "****"
	}
	return k[:5] + "****" + k[len(k)-4:]
}

func newLoginStatusCmd(a *app) *cobra.Command {
	var home string
	c := &cobra.Command{
		Use:   "status",
		Short: "Say how Docket authenticates to the model provider (exit 1 when it cannot)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := resolveHome(home)
			if err != nil {
				return usageErrorf("%v", err)
			}
			env := ""
			if os.Getenv("OPENAI_API_KEY") != "" {
				env = "OPENAI_API_KEY is set in the environment and is used before any saved login"
			}
			store := auth.NewStore(h)
			creds, err := store.Load()
			switch {
			case errors.Is(err, auth.ErrNotLoggedIn) && env != "":
				fmt.Fprintln(a.stdout, env)
				return nil
			case errors.Is(err, auth.ErrNotLoggedIn):
				fmt.Fprintf(a.stdout, "Not logged in (no %s, no OPENAI_API_KEY); run docket login or docket login --with-api-key\n", store.Path())
				return &exitError{code: exitFailed}
			case err != nil:
				return &exitError{code: exitFailed, err: err}
			case creds.TokenType == apiKeyTokenType:
				fmt.Fprintf(a.stdout, "Logged in using an API key (%s), saved in %s\n", maskKey(creds.AccessToken), store.Path())
			default:
				fmt.Fprintf(a.stdout, "Logged in with OAuth (client %s, token endpoint %s), saved in %s\n", creds.ClientID, creds.TokenURL, store.Path())
				switch {
				case creds.Expiry.IsZero():
				case creds.Expiry.After(time.Now()):
					fmt.Fprintf(a.stdout, "  access token valid until %s\n", creds.Expiry.Local().Format(time.RFC3339))
				case creds.RefreshToken != "":
					fmt.Fprintf(a.stdout, "  access token expired at %s; it is refreshed on the next request\n", creds.Expiry.Local().Format(time.RFC3339))
				default:
					fmt.Fprintf(a.stdout, "  access token expired at %s and cannot be refreshed; run docket login again\n", creds.Expiry.Local().Format(time.RFC3339))
				}
			}
			if env != "" {
				fmt.Fprintf(a.stdout, "  (%s)\n", env)
			}
			return nil
		},
	}
	c.Flags().StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	return c
}

// endpointError is a device flow that failed because the endpoint did not
// speak OAuth at all. Its message is short (an HTML error page is not
// repeated); the cause stays reachable with errors.As.
type endpointError struct {
	msg string
	err error
}

func (e *endpointError) Error() string { return e.msg }
func (e *endpointError) Unwrap() error { return e.err }

// loginError words a failed login. When the authorization server did not
// answer the device flow at all (an HTTP error without an OAuth error code,
// something that is not JSON, or no answer), the likeliest cause is a wrong
// --issuer, and the message says so.
func loginError(err error, cfg auth.Config, issuer string, explicit bool) error {
	var dfe *auth.DeviceFlowError
	if errors.As(err, &dfe) {
		return fmt.Errorf("login: %w", err) // the server spoke OAuth: its own words say what is wrong
	}
	what := ""
	var re *oauth2.RetrieveError
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &re) && re.Response != nil:
		what = fmt.Sprintf("%s answered %s", cfg.DeviceAuthURL, re.Response.Status)
	case errors.As(err, &ne), errors.As(err, &oe):
		what = fmt.Sprintf("cannot reach %s (%v)", cfg.DeviceAuthURL, errors.Unwrap(err))
	case strings.Contains(err.Error(), "cannot parse json"), strings.Contains(err.Error(), "invalid character"):
		what = fmt.Sprintf("%s did not answer with OAuth JSON", cfg.DeviceAuthURL)
	default:
		return fmt.Errorf("login: %w", err)
	}
	if explicit {
		return &endpointError{msg: "login: " + what + "; is --device-auth-url right? It must be an OAuth 2.0 device authorization endpoint (RFC 8628)", err: err}
	}
	if issuer == "" {
		issuer = auth.DefaultIssuer
	}
	return &endpointError{msg: fmt.Sprintf("login: %s; is the issuer right? %s must serve the OAuth device flow (RFC 8628) at %s; give the right one with --issuer URL, or both endpoints with --device-auth-url and --token-url",
		what, issuer, cfg.DeviceAuthURL), err: err}
}
