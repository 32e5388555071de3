package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FileName is the token file inside $DOCKET_HOME.
const FileName = "auth.json"

// ErrNotLoggedIn means there is no token file.
var ErrNotLoggedIn = errors.New("not logged in (run `docket login`)")

// Credentials is what auth.json holds: the tokens and where to refresh them.
type Credentials struct {
	ClientID      string    `json:"client_id"`
	DeviceAuthURL string    `json:"device_auth_url,omitempty"`
	TokenURL      string    `json:"token_url"`
	Scopes        []string  `json:"scopes,omitempty"`
	AccessToken   string    `json:"access_token"`
	RefreshToken  string    `json:"refresh_token,omitempty"`
	TokenType     string    `json:"token_type,omitempty"`
	Expiry        time.Time `json:"expiry,omitzero"`
}

// Store reads and writes one auth.json.
type Store struct{ path string }

// NewStore is the token file in home.
func NewStore(home string) Store { return Store{path: filepath.Join(home, FileName)} }

// Path is the token file's path.
func (s Store) Path() string { return s.path }

// Load reads the credentials; ErrNotLoggedIn when the file is absent.
func (s Store) Load() (Credentials, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return Credentials{}, ErrNotLoggedIn
	}
	if err != nil {
		return Credentials{}, fmt.Errorf("reading %s: %w", s.path, err)
	}
	return parseCredentials(s.path, data)
}

func parseCredentials(path string, data []byte) (Credentials, error) {
	var c Credentials
	if err := json.Unmarshal(data, &c); err != nil {
		return Credentials{}, fmt.Errorf("%s: not valid credentials: %w (run `docket login` again)", path, err)
	}
	if c.AccessToken == "" {
		return Credentials{}, fmt.Errorf("%s: access_token is missing (run `docket login` again)", path)
	}
	if c.RefreshToken != "" {
		if c.TokenURL == "" || c.ClientID == "" {
			return Credentials{}, fmt.Errorf("%s: token_url and client_id are needed to refresh (run `docket login` again)", path)
		}
		if err := CheckURL(path+": token_url", c.TokenURL); err != nil {
			return Credentials{}, err
		}
	}
	return c, nil
}

// Save writes the credentials atomically with mode 0600, creating home
// (mode 0700) if needed.
func (s Store) Save(c Credentials) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding credentials: %w", err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".auth-*.json")
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	// After a successful rename there is nothing left to remove.
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close() // the write already failed; that error is the one to report
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		_ = tmp.Close() // the write already failed; that error is the one to report
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close() // the write already failed; that error is the one to report
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()  // make the rename durable; not all filesystems allow it
		_ = d.Close() // a directory opened for reading: nothing to lose
	}
	return nil
}

// Delete removes the token file; it reports whether there was one.
func (s Store) Delete() (bool, error) {
	err := os.Remove(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("removing %s: %w", s.path, err)
	}
	return true, nil
}
