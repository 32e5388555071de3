package main

import (
	"path/filepath"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
)

// sessionEgress sends a session's network through its egress proxy when
// the permission profile's network is on (config Egress): the session
// (engine/session) gives a sandboxed plan an empty network namespace with
// a bridge to the proxy, and the engine runs the proxy with the profile's
// rules. An "always" answer is written to the profile's domains in the
// config file the session read (config.AllowDomainAlways: one line added,
// the rest of the file kept as it was, comments included).
func sessionEgress(cfg *config.Config) *engine.Egress {
	r := cfg.PermissionProfile
	if !cfg.Egress || r == nil {
		return nil
	}
	e := &engine.Egress{Network: r.Network, Profile: r.Name}
	if cfg.ConfigHome != "" {
		path := filepath.Join(cfg.ConfigHome, config.FileName)
		e.Persist = func(host string) (string, error) { return config.AllowDomainAlways(path, r.Name, host) }
	}
	return e
}

// egressProfile names the profile whose network the session's proxy
// serves, for the header; "" without one.
func egressProfile(e *engine.Egress) string {
	if e == nil {
		return ""
	}
	return e.Profile
}
