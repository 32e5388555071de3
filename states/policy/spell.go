package policy

import (
	"fmt"
	"strings"
)

// ParseError reports a value that is not one of the accepted spellings.
type ParseError struct {
	What       string   // e.g. "approval policy"
	Value      string   // what was given
	Valid      []string // the accepted spellings
	Suggestion string   // the nearest accepted spelling, if close enough
}

// Error says what was given, the nearest valid spelling and all of them.
func (e *ParseError) Error() string {
	msg := fmt.Sprintf("unknown %s %q", e.What, e.Value)
	if e.Suggestion != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.Suggestion)
	}
	return msg + " (valid: " + strings.Join(e.Valid, ", ") + ")"
}

// parseEnum returns s if it is one of valid, else a ParseError with the
// nearest spelling.
func parseEnum(what, s string, valid []string) (string, error) {
	for _, v := range valid {
		if s == v {
			return v, nil
		}
	}
	return "", &ParseError{What: what, Value: s, Valid: valid, Suggestion: nearest(s, valid)}
}

// nearest returns the candidate closest to s by edit distance (ignoring case
// and treating _ and - alike), if it is within a third of its length.
func nearest(s string, candidates []string) string {
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "_", "-") }
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := editDistance(norm(s), norm(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD == 0 || bestD <= max(1, len(best)/3) {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
