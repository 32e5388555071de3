package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// AlwaysRule is where an "always" network answer about a permission
// profile is written: a domains table in one of the user's own config
// files, the one that defines the profile.
type AlwaysRule struct {
	// File is the config file.
	File string
	// Table is the domains table's key in File:
	// permissions.NAME.network.domains, under profiles.X when a Codex
	// profile's table defines the permission profile.
	Table []string
}

// AlwaysRuleFor finds where an "always" answer about permission profile
// name is written: the user's own file that defines it, the highest in
// precedence of the config file (its top level), a [profiles.X] table in
// it, and a profile file beside it, so the rule widens the profile only
// where the profile was defined (a --profile's "dev" is not the file's
// "dev").
//
// A profile a trusted project's config file sets any key of is refused:
// the profile the person answered about is then the project's as much as
// the user's, so a rule in the user's file would widen the user's profile
// in every other workspace, and a rule in the project's file would put
// the user's answer in the workspace (shared with whoever writes the
// project, and readable as the project's choice). So is a profile no
// file defines (built in, or set by -c alone). The answer then holds for
// the session; the journal says no rule was written.
func (c *Config) AlwaysRuleFor(name string) (AlwaysRule, error) {
	if strings.HasPrefix(name, ":") {
		return AlwaysRule{}, fmt.Errorf("the built-in profile %s has no domains of its own to add to", name)
	}
	best, found := Source{}, false
	for key, src := range c.Sources {
		if !ofProfile(key, name) {
			continue
		}
		switch src.Layer {
		case LayerProject:
			return AlwaysRule{}, fmt.Errorf("permission profile %s is set (in part) by the project's %s (%s): an \"always\" answer about it is kept for the session, not written to the user's config nor to the project's", name, src.location(), key)
		case LayerFile:
			if !found {
				best, found = src, true
			}
		case LayerProfile:
			best, found = src, true
		}
	}
	if !found {
		return AlwaysRule{}, fmt.Errorf("permission profile %s is defined by no config file: an \"always\" answer has nowhere to go", name)
	}
	r := AlwaysRule{File: best.File, Table: domainsTable(nil, name)}
	if best.Layer == LayerProfile && best.File == c.File {
		// [profiles.X] in the config file, not a profile file of its own.
		r.Table = domainsTable([]string{"profiles", best.Name}, name)
	}
	return r, nil
}

// Prepare checks host can be added (the file parses, and the edit
// changes nothing else) and returns the key it would write, writing
// nothing: the answer naming the key is journaled before Write.
func (r AlwaysRule) Prepare(host string) (string, error) {
	data, err := os.ReadFile(r.File)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", r.File, err)
	}
	_, key, err := addAllowedDomainAt(string(data), r.Table, host)
	if err != nil {
		return "", fmt.Errorf("%s: %w", r.File, err)
	}
	return key, nil
}

// Write adds host as allowed, under the file's lock, atomically, and
// returns the key written.
func (r AlwaysRule) Write(host string) (string, error) {
	return allowDomainAt(r.File, r.Table, host)
}

// ofProfile reports whether the source key key sets a key of permission
// profile name. "permissions" matches in any case, as the decoder matches
// it to its field ([Permissions.dev] sets dev); the profile's name is a
// map key, matched exactly.
func ofProfile(key, name string) bool {
	const table = "permissions."
	prefix := joinKey([]string{name}) + "."
	return len(key) > len(table) && strings.EqualFold(key[:len(table)], table) && strings.HasPrefix(key[len(table):], prefix)
}
