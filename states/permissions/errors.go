package permissions

import (
	"fmt"
	"strings"
)

// Error is a profile that cannot be used: it names the key (dotted, with
// components that need it quoted, as TOML writes them) and why.
type Error struct {
	Key string
	Msg string
}

// Error says which key is wrong and why.
func (e *Error) Error() string {
	if e.Key == "" {
		return e.Msg
	}
	return e.Key + ": " + e.Msg
}

// keyPath writes a key path as TOML would: bare components where they may
// be bare, quoted otherwise.
func keyPath(parts ...string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		if p != "" && strings.IndexFunc(p, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		}) < 0 {
			out[i] = p
			continue
		}
		out[i] = fmt.Sprintf("%q", p)
	}
	return strings.Join(out, ".")
}
