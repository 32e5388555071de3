// Package auth signs Docket in to a model provider with the OAuth 2.0 device
// authorization grant (RFC 8628), keeps the tokens in $DOCKET_HOME/auth.json
// (mode 0600, written atomically) and refreshes them before use.
package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/docket-engine/docket/events/safetext"
)

// Defaults for `docket login` when no flag says otherwise.
const (
	DefaultIssuer   = "https://auth.openai.com"
	DefaultClientID = "docket-cli"
	// Paths below an issuer, as the provider's device flow lays them out.
	DeviceAuthPath = "/oauth/device/code"
	TokenPath      = "/oauth/token"
)

// DefaultScopes asks for an identity and a refresh token.
func DefaultScopes() []string { return []string{"openid", "offline_access"} }

// Config names the authorization server and the client.
type Config struct {
	ClientID      string
	DeviceAuthURL string
	TokenURL      string
	Scopes        []string
	// HTTPClient makes the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
}

// FromIssuer fills the device and token endpoints below an issuer URL.
func FromIssuer(issuer string) (deviceAuthURL, tokenURL string, err error) {
	if err := CheckURL("issuer", issuer); err != nil {
		return "", "", err
	}
	base := strings.TrimRight(issuer, "/")
	return base + DeviceAuthPath, base + TokenPath, nil
}

// CheckURL accepts an absolute https URL, or http to a loopback host (for
// tests and local servers); what names the flag or field in the error.
func CheckURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%s: %q is not an absolute URL", what, raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
		return fmt.Errorf("%s: %q must use https (plain http is allowed only to a loopback host)", what, raw)
	}
	return fmt.Errorf("%s: %q must be an https URL", what, raw)
}

func (c Config) oauth2() *oauth2.Config {
	return &oauth2.Config{
		ClientID: c.ClientID,
		Scopes:   c.Scopes,
		Endpoint: oauth2.Endpoint{
			DeviceAuthURL: c.DeviceAuthURL,
			TokenURL:      c.TokenURL,
			AuthStyle:     oauth2.AuthStyleInParams,
		},
	}
}

func (c Config) context(ctx context.Context) context.Context {
	if c.HTTPClient == nil {
		return ctx
	}
	return context.WithValue(ctx, oauth2.HTTPClient, c.HTTPClient)
}

// MaxPollInterval bounds the seconds between token polls a server may ask
// for (its "interval"): longer, and the code expires between two polls.
const MaxPollInterval = 600

// Device flow outcomes a caller may branch on (errors.Is).
var (
	ErrExpiredToken = errors.New("expired_token")
	ErrAccessDenied = errors.New("access_denied")
)

// DeviceFlowError is the authorization server refusing the device flow.
type DeviceFlowError struct {
	Code        string // RFC 8628 / RFC 6749 error code
	Description string
}

// Error explains the refusal in words a user can act on.
func (e *DeviceFlowError) Error() string {
	var msg string
	switch e.Code {
	case "expired_token":
		msg = "the code expired before the sign-in was approved; run `docket login` again"
	case "access_denied":
		msg = "the sign-in was denied at the verification page"
	default:
		msg = "the authorization server refused the sign-in (" + safetext.Line(e.Code) + ")"
	}
	if e.Description != "" {
		msg += ": " + safetext.Line(e.Description)
	}
	return msg
}

// Unwrap lets errors.Is match ErrExpiredToken and ErrAccessDenied.
func (e *DeviceFlowError) Unwrap() error {
	switch e.Code {
	case "expired_token":
		return ErrExpiredToken
	case "access_denied":
		return ErrAccessDenied
	}
	return nil
}

// Login runs the device authorization flow: it asks for a device code,
// tells the user on w where to enter it, polls the token endpoint at the
// server's interval (slowing down when told to) and returns the credentials
// to save. It ends with ctx.
func Login(ctx context.Context, cfg Config, w io.Writer) (Credentials, error) {
	if cfg.ClientID == "" {
		return Credentials{}, errors.New("client id: empty")
	}
	if err := CheckURL("device authorization URL", cfg.DeviceAuthURL); err != nil {
		return Credentials{}, err
	}
	if err := CheckURL("token URL", cfg.TokenURL); err != nil {
		return Credentials{}, err
	}
	oc := cfg.oauth2()
	octx := cfg.context(ctx)
	da, err := oc.DeviceAuth(octx)
	if err != nil {
		return Credentials{}, fmt.Errorf("requesting a device code from %s: %w", cfg.DeviceAuthURL, flowError(err))
	}
	if da.DeviceCode == "" || da.UserCode == "" || da.VerificationURI == "" {
		return Credentials{}, fmt.Errorf("requesting a device code from %s: the answer lacks device_code, user_code or verification_uri", cfg.DeviceAuthURL)
	}
	if da.Interval < 0 || da.Interval > MaxPollInterval {
		// The oauth2 package would panic on a non-positive ticker (a
		// negative interval, or one whose nanoseconds overflow).
		return Credentials{}, fmt.Errorf("requesting a device code from %s: interval %d s: want 0 to %d seconds between polls", cfg.DeviceAuthURL, da.Interval, MaxPollInterval)
	}
	// The server's strings go to a terminal: an escape sequence in them
	// would rewrite what the user reads (where to sign in, the code).
	fmt.Fprintf(w, "To sign in, open %s\nand enter the code: %s\n", safetext.Line(da.VerificationURI), safetext.Line(da.UserCode))
	if da.VerificationURIComplete != "" {
		fmt.Fprintf(w, "(or open %s)\n", safetext.Line(da.VerificationURIComplete))
	}
	if !da.Expiry.IsZero() {
		fmt.Fprintf(w, "The code expires in %s.\n", time.Until(da.Expiry).Round(time.Second))
	}
	fmt.Fprintln(w, "Waiting for approval...")
	tok, err := oc.DeviceAccessToken(octx, da)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			// DeviceAccessToken stops at the code's own expiry.
			err = &DeviceFlowError{Code: "expired_token"}
		}
		return Credentials{}, fmt.Errorf("waiting for approval: %w", flowError(err))
	}
	return Credentials{
		ClientID:      cfg.ClientID,
		DeviceAuthURL: cfg.DeviceAuthURL,
		TokenURL:      cfg.TokenURL,
		Scopes:        cfg.Scopes,
		AccessToken:   tok.AccessToken,
		RefreshToken:  tok.RefreshToken,
		TokenType:     tok.TokenType,
		Expiry:        tok.Expiry,
	}, nil
}

// flowError turns an OAuth error answer into a DeviceFlowError.
func flowError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode != "" {
		return &DeviceFlowError{Code: re.ErrorCode, Description: re.ErrorDescription}
	}
	return err
}
