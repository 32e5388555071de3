package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/states/permissions"
)

// AddAllowedDomain returns text with host allowed in the profile's
// [permissions.PROFILE.network.domains] table (Codex's "always" answer),
// and the key it wrote. It edits as little as it can: one line after the
// table's header, or the table appended; and it checks that the result
// parses to the same document plus that one key, else it leaves the file
// to be edited by hand.
func AddAllowedDomain(text, profile, host string) (string, string, error) {
	if strings.HasPrefix(profile, ":") {
		return "", "", fmt.Errorf("the built-in profile %s has no domains of its own to add to; define a profile under [permissions]", profile)
	}
	return addAllowedDomainAt(text, domainsTable(nil, profile), host)
}

// domainsTable is the key of a permission profile's domains table under
// prefix (nil: the file's top level; [profiles NAME]: a Codex profile's
// table).
func domainsTable(prefix []string, profile string) []string {
	return append(append([]string(nil), prefix...), "permissions", profile, "network", "domains")
}

// addAllowedDomainAt is AddAllowedDomain for the domains table want.
func addAllowedDomainAt(text string, want []string, host string) (string, string, error) {
	h, err := permissions.NormaliseHost(host)
	if err != nil {
		return "", "", fmt.Errorf("%q is not a host name: %w", host, err)
	}
	var before map[string]any
	if err := toml.Unmarshal([]byte(text), &before); err != nil {
		return "", "", fmt.Errorf("the config is not valid TOML; fix it first: %w", err)
	}
	key := joinKey(append(want, h))
	lines := strings.Split(text, "\n")
	entry := strconv.Quote(h) + ` = "allow"`
	at := -1
	for i, l := range lines {
		if k, ok := TableHeaderKey(l); ok && reflect.DeepEqual(k, want) {
			at = i + 1
			break
		}
	}
	if at >= 0 {
		lines = append(lines[:at], append([]string{entry}, lines[at:]...)...)
	} else {
		if n := len(lines); n > 0 && lines[n-1] == "" {
			lines = lines[:n-1]
		}
		lines = append(lines, "", "["+joinKey(want)+"]", entry, "")
	}
	after := strings.Join(lines, "\n")
	var got map[string]any
	if err := toml.Unmarshal([]byte(after), &got); err != nil {
		return "", "", fmt.Errorf("adding %s would break the config (%v; the domains may be written inline): edit it by hand", key, err)
	}
	expect := deepCopy(before)
	setDomain(expect, want, h)
	if !reflect.DeepEqual(expect, got) {
		return "", "", fmt.Errorf("adding %s would change other settings: edit it by hand", key)
	}
	return after, key, nil
}

// AllowDomainAlways writes host as allowed into the profile's domains in
// the config file at path, under a lock, atomically; it returns the key.
func AllowDomainAlways(path, profile, host string) (string, error) {
	if strings.HasPrefix(profile, ":") {
		return "", fmt.Errorf("the built-in profile %s has no domains of its own to add to; define a profile under [permissions]", profile)
	}
	return allowDomainAt(path, domainsTable(nil, profile), host)
}

// allowDomainAt is AllowDomainAlways for the domains table want.
func allowDomainAt(path string, want []string, host string) (string, error) {
	unlock, err := LockFile(path)
	if err != nil {
		return "", err
	}
	defer unlock()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	text, key, err := addAllowedDomainAt(string(data), want, host)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return key, WriteFileAtomic(path, text)
}

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = deepCopy(sub)
		}
		out[k] = v
	}
	return out
}

func setDomain(m map[string]any, path []string, host string) {
	for _, p := range path {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	m[host] = "allow"
}
