package config

import (
	"fmt"
	"strings"

	"github.com/docket-engine/docket/states/policy"
)

// notOneOf formats "x" is not a valid <what> (a, b, c); did you mean "b"?
func notOneOf(value, what string, valid []string) string {
	msg := fmt.Sprintf("%q is not a valid %s (%s)", value, what, strings.Join(valid, ", "))
	if s := policy.Nearest(value, valid); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}
