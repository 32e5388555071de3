package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/states/permissions"
)

// headerLine matches a TOML table header, [a.b] or [[a.b]].
var headerLine = regexp.MustCompile(`^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$`)

// AddAllowedDomain returns text with host allowed in the profile's
// [permissions.PROFILE.network.domains] table (Codex's "always" answer),
// and the key it wrote. It edits as little as it can: one line after the
// table's header, or the table appended; and it checks that the result
// parses to the same document plus that one key, else it leaves the file
// to be edited by hand.
func AddAllowedDomain(text, profile, host string) (string, string, error) {
	h, err := permissions.NormaliseHost(host)
	if err != nil {
		return "", "", fmt.Errorf("%q is not a host name: %w", host, err)
	}
	if strings.HasPrefix(profile, ":") {
		return "", "", fmt.Errorf("the built-in profile %s has no domains of its own to add to; define a profile under [permissions]", profile)
	}
	var before map[string]any
	if err := toml.Unmarshal([]byte(text), &before); err != nil {
		return "", "", fmt.Errorf("the config is not valid TOML; fix it first: %w", err)
	}
	want := []string{"permissions", profile, "network", "domains"}
	key := joinKey(append(want, h))
	lines := strings.Split(text, "\n")
	entry := strconv.Quote(h) + ` = "allow"`
	at := -1
	for i, l := range lines {
		if m := headerLine.FindStringSubmatch(l); m != nil && reflect.DeepEqual(splitHeader(m[1]), want) {
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
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing the file unlocks as well
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	text, key, err := AddAllowedDomain(string(data), profile, host)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	mode := os.FileMode(0o600)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config.toml.*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return key, os.Rename(tmp.Name(), path)
}

func splitHeader(s string) []string {
	var parts []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
		case r == '.':
			parts = append(parts, cur.String())
			cur.Reset()
		case r == ' ' || r == '\t':
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, cur.String())
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
