package config

import (
	"fmt"
	"strings"
)

// Nearest returns the candidate closest to word in edit distance, or ""
// when none is close enough to be a plausible misspelling.
func Nearest(word string, candidates []string) string {
	best, bestD := "", -1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		d := Levenshtein(lw, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	// A third of the word, at least two edits: catches transpositions and
	// dropped letters without suggesting something unrelated.
	limit := max(2, len([]rune(word))/3)
	if bestD >= 0 && bestD <= limit {
		return best
	}
	return sharedStem(lw, candidates)
}

// sharedStem returns the one candidate that shares the longest prefix of
// at least three letters with word ("deny" -> "denied"), or "".
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

// Levenshtein returns the edit distance between a and b, in runes.
func Levenshtein(a, b string) int {
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

// notOneOf formats "x" is not a valid <what> (a, b, c); did you mean "b"?
func notOneOf(value, what string, valid []string) string {
	msg := fmt.Sprintf("%q is not a valid %s (%s)", value, what, strings.Join(valid, ", "))
	if s := Nearest(value, valid); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}
