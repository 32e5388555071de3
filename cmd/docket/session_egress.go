package main

import (
	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
)

// sessionEgress sends a session's network through its egress proxy when
// the permission profile's network is on (config Egress): the session
// (engine/session) gives a sandboxed plan an empty network namespace with
// a bridge to the proxy, and the engine runs the proxy with the profile's
// rules. An "always" answer is written, after the answer is journaled, to
// the profile's domains in the user's file that defines the profile
// (config.AlwaysRuleFor: one line added, the rest of the file kept as it
// was, comments included); for a profile a project's config sets, or no
// file defines, it holds for the session only.
func sessionEgress(cfg *config.Config) *engine.Egress {
	r := cfg.PermissionProfile
	if !cfg.Egress || r == nil {
		return nil
	}
	e := &engine.Egress{Network: r.Network, Profile: r.Name}
	if rule, err := cfg.AlwaysRuleFor(r.Name); err == nil && cfg.ConfigHome != "" {
		e.Persist = func(host string) (string, func() error, error) {
			key, err := rule.Prepare(host)
			if err != nil {
				return "", nil, err
			}
			return key, func() error { _, err := rule.Write(host); return err }, nil
		}
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
