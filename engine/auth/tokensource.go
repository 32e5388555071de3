package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"golang.org/x/oauth2"
)

// persisting hands out the access token, refreshing it through oauth2 when
// it has expired and writing any new token back to the store.
type persisting struct {
	mu    sync.Mutex
	store Store
	creds Credentials
	src   oauth2.TokenSource
}

// NewTokenSource loads the saved login and returns a function that yields a
// valid access token, refreshing (and saving) it first when it has expired.
// ctx bounds the refresh requests; hc makes them (nil: http.DefaultClient).
// It returns ErrNotLoggedIn when there is no auth.json.
func NewTokenSource(ctx context.Context, store Store, hc *http.Client) (func() (string, error), error) {
	creds, err := store.Load()
	if err != nil {
		return nil, err
	}
	cfg := Config{ClientID: creds.ClientID, TokenURL: creds.TokenURL, Scopes: creds.Scopes, HTTPClient: hc}
	tok := &oauth2.Token{
		AccessToken:  creds.AccessToken,
		RefreshToken: creds.RefreshToken,
		TokenType:    creds.TokenType,
		Expiry:       creds.Expiry,
	}
	p := &persisting{store: store, creds: creds, src: cfg.oauth2().TokenSource(cfg.context(ctx), tok)}
	return p.token, nil
}

func (p *persisting) token() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	tok, err := p.src.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return "", fmt.Errorf("refreshing the login token at %s: %w (run `docket login` again)", p.creds.TokenURL, flowError(err))
		}
		if p.creds.RefreshToken == "" {
			return "", fmt.Errorf("the login token has expired and there is no refresh token: %w (run `docket login` again)", err)
		}
		return "", fmt.Errorf("refreshing the login token at %s: %w", p.creds.TokenURL, err)
	}
	if tok.AccessToken != p.creds.AccessToken || tok.RefreshToken != p.creds.RefreshToken || !tok.Expiry.Equal(p.creds.Expiry) {
		next := p.creds
		next.AccessToken, next.RefreshToken, next.Expiry = tok.AccessToken, tok.RefreshToken, tok.Expiry
		if tok.TokenType != "" {
			next.TokenType = tok.TokenType
		}
		if err := p.store.Save(next); err != nil {
			return "", fmt.Errorf("saving the refreshed login token: %w", err)
		}
		p.creds = next
	}
	return tok.AccessToken, nil
}
