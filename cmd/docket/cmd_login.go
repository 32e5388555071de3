package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/docket-engine/docket/engine/auth"
)

func newLoginCmd(a *app) *cobra.Command {
	var (
		home, issuer, deviceURL, tokenURL, clientID string
		scopes                                      []string
		withAPIKey                                  bool
	)
	c := &cobra.Command{
		Use:   "login [--home DIR] [--issuer URL | --device-auth-url URL --token-url URL] [--client-id ID] [--scope S]...",
		Short: "Sign in to the model provider with an OAuth device code (RFC 8628)",
		Long: `Sign in with the OAuth 2.0 device authorization grant (RFC 8628): Docket
asks the authorization server for a code, prints the code and the address to
enter it at, and waits (polling at the interval the server asks for) until the
sign-in is approved in a browser, denied, or the code expires.

The tokens are saved to $DOCKET_HOME/auth.json (mode 0600) together with the
token endpoint, and refreshed there before they expire. An API key in the
provider's env_key variable (OPENAI_API_KEY for the built-in provider) is
still used first when it is set.

Endpoints: --issuer URL (default ` + auth.DefaultIssuer + `) uses URL` + auth.DeviceAuthPath + `
and URL` + auth.TokenPath + `; --device-auth-url and --token-url give both endpoints
explicitly instead. URLs must be https, except to a loopback host.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := resolveHome(home)
			if err != nil {
				return usageErrorf("%v", err)
			}
			if withAPIKey {
				return loginWithAPIKey(a, h)
			}
			cfg, err := loginConfig(cmd, issuer, deviceURL, tokenURL, clientID, scopes)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			creds, err := auth.Login(ctx, cfg, a.stderr)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return &exitError{code: exitFailed, err: errors.New("login: interrupted")}
				}
				return &exitError{code: exitFailed, err: loginError(err, cfg, issuer, cmd.Flags().Changed("device-auth-url"))}
			}
			store := auth.NewStore(h)
			if err := store.Save(creds); err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("login: %w", err)}
			}
			fmt.Fprintf(a.stdout, "Logged in; credentials saved to %s\n", store.Path())
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&withAPIKey, "with-api-key", false, "read an API key from stdin and save it instead of signing in (printenv OPENAI_API_KEY | docket login --with-api-key)")
	f.StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	f.StringVar(&issuer, "issuer", "", "authorization server; endpoints are ISSUER"+auth.DeviceAuthPath+" and ISSUER"+auth.TokenPath+" (default "+auth.DefaultIssuer+")")
	f.StringVar(&deviceURL, "device-auth-url", "", "device authorization endpoint (with --token-url, instead of --issuer)")
	f.StringVar(&tokenURL, "token-url", "", "token endpoint (with --device-auth-url, instead of --issuer)")
	f.StringVar(&clientID, "client-id", auth.DefaultClientID, "OAuth client id")
	f.StringSliceVar(&scopes, "scope", auth.DefaultScopes(), "OAuth scope to request (repeatable)")
	c.AddCommand(newLoginStatusCmd(a))
	return c
}

// loginConfig checks the endpoint flags: --issuer, or both explicit URLs.
func loginConfig(cmd *cobra.Command, issuer, deviceURL, tokenURL, clientID string, scopes []string) (auth.Config, error) {
	explicit := cmd.Flags().Changed("device-auth-url") || cmd.Flags().Changed("token-url")
	if explicit && cmd.Flags().Changed("issuer") {
		return auth.Config{}, usageErrorf("login: --issuer cannot be combined with --device-auth-url/--token-url")
	}
	if explicit {
		if deviceURL == "" || tokenURL == "" {
			return auth.Config{}, usageErrorf("login: --device-auth-url and --token-url go together")
		}
		if err := auth.CheckURL("--device-auth-url", deviceURL); err != nil {
			return auth.Config{}, usageErrorf("login: %v", err)
		}
		if err := auth.CheckURL("--token-url", tokenURL); err != nil {
			return auth.Config{}, usageErrorf("login: %v", err)
		}
	} else {
		if issuer == "" {
			issuer = auth.DefaultIssuer
		}
		var err error
		if deviceURL, tokenURL, err = auth.FromIssuer(issuer); err != nil {
			return auth.Config{}, usageErrorf("login: --%v", err)
		}
	}
	if clientID == "" {
		return auth.Config{}, usageErrorf("login: --client-id is empty")
	}
	return auth.Config{ClientID: clientID, DeviceAuthURL: deviceURL, TokenURL: tokenURL, Scopes: scopes}, nil
}
