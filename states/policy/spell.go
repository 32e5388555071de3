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

// spellings returns the string forms of typed values, for parseEnum.
func spellings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// parseEnum returns s if it is one of valid, else a ParseError with the
// nearest spelling.
func parseEnum(what, s string, valid []string) (string, error) {
	for _, v := range valid {
		if s == v {
			return v, nil
		}
	}
	return "", &ParseError{What: what, Value: s, Valid: valid, Suggestion: Nearest(s, valid)}
}

// Nearest returns the candidate closest to word in edit distance (ignoring
// case), or "" when none is close enough to be a plausible misspelling: at
// most a third of the word, and at least two edits, apart; failing that,
// the one candidate sharing the longest prefix of three letters or more
// ("deny" -> "denied"). It is Docket's one spelling suggester: the CLI,
// the config file and these parsers all use it.
func Nearest(word string, candidates []string) string {
	best, bestD := "", -1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		d := levenshtein(lw, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= max(2, len([]rune(word))/3) {
		return best
	}
	return sharedStem(lw, candidates)
}

// sharedStem returns the one candidate that shares the longest prefix of
// at least three letters with word, or "" (also on a tie).
func sharedStem(word string, candidates []string) string {
	best, bestN, tie := "", 2, false
	for _, c := range candidates {
		n := commonPrefix(word, strings.ToLower(c))
		switch {
		case n > bestN:
			best, bestN, tie = c, n, false
		case n == bestN && best != "":
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

func commonPrefix(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && ra[n] == rb[n] {
		n++
	}
	return n
}

// levenshtein returns the edit distance between a and b, in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
