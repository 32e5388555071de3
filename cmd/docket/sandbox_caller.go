package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// sandboxCaller is who asked for `docket sandbox`: this process (the zero
// value), or a client of the sandbox daemon, whose working directory and
// environment stand in for the daemon's own.
type sandboxCaller struct {
	cwd string
	env []string
}

// sandboxCaller returns who a's sandbox call is for.
func (a *app) sandboxCaller() sandboxCaller { return a.caller }

func (c sandboxCaller) getenv(key string) string {
	if c.env == nil {
		return os.Getenv(key)
	}
	// The first one wins, as for os.Getenv.
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// abs makes p absolute against the caller's working directory; "" is
// that directory.
func (c sandboxCaller) abs(p string) (string, error) {
	if c.cwd == "" {
		if p == "" {
			return os.Getwd()
		}
		return filepath.Abs(p)
	}
	if p == "" {
		return c.cwd, nil
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(c.cwd, p), nil
}

// home is docket's home for the caller, as resolveHome finds it.
func (c sandboxCaller) home() (string, error) {
	if c.env == nil {
		return resolveHome("")
	}
	if h := c.getenv("DOCKET_HOME"); h != "" {
		return c.abs(h)
	}
	if h := c.getenv("HOME"); h != "" {
		return filepath.Join(h, ".docket"), nil
	}
	return "", errors.New("find a home for docket: set DOCKET_HOME or HOME")
}
