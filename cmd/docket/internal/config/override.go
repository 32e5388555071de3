package config

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Override is one parsed -c KEY=VALUE.
type Override struct {
	// Key is the dotted key split into its parts.
	Key []string
	// Value is VALUE parsed as a TOML value, or VALUE itself as a string
	// when it is not one.
	Value any
	// Text is the override as given, for error messages.
	Text string
}

// ParseOverride parses one -c KEY=VALUE. KEY is a TOML dotted key (quoted
// parts allowed); VALUE is parsed as a TOML value, else taken as a string.
func ParseOverride(s string) (Override, error) {
	o := Override{Text: s}
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return o, &Error{Source: "-c " + s, Msg: "want KEY=VALUE"}
	}
	key, err := parseKey(strings.TrimSpace(k))
	if err != nil {
		return o, &Error{Source: "-c " + s, Msg: err.Error(), Err: err}
	}
	o.Key = key
	o.Value = parseValue(strings.TrimSpace(v))
	return o, nil
}

// parseKey parses a dotted key by letting TOML read "KEY = 0" and checking
// that exactly one key was written: no smuggled second assignment.
func parseKey(k string) ([]string, error) {
	if k == "" {
		return nil, fmt.Errorf("missing key before '='")
	}
	if strings.ContainsAny(k, "\n\r#") {
		return nil, fmt.Errorf("key %q is not a TOML dotted key", k)
	}
	var t tree
	if err := toml.Unmarshal([]byte(k+" = 0\n"), &t); err != nil {
		return nil, fmt.Errorf("key %q is not a TOML dotted key", k)
	}
	var key []string
	for {
		if len(t) != 1 {
			return nil, fmt.Errorf("key %q is not a single TOML dotted key", k)
		}
		for name, v := range t {
			key = append(key, name)
			switch x := v.(type) {
			case tree:
				t = x
			case int64:
				if x != 0 {
					return nil, fmt.Errorf("key %q is not a single TOML dotted key", k)
				}
				return key, nil
			default:
				return nil, fmt.Errorf("key %q is not a single TOML dotted key", k)
			}
		}
	}
}

// parseValue reads v as a TOML value when it is exactly one, else returns
// it as a string: -c model=o3 and -c model='"o3"' mean the same.
func parseValue(v string) any {
	if v == "" || strings.ContainsAny(v, "\n\r") {
		return v
	}
	var t tree
	if err := toml.Unmarshal([]byte("v = "+v+"\n"), &t); err != nil || len(t) != 1 {
		return v
	}
	x, ok := t["v"]
	if !ok {
		return v
	}
	return x
}
