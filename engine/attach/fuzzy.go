package attach

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Match is one completion for a query.
type Match struct {
	Path string
	// Score ranks matches: higher is better.
	Score int
	// Positions are the byte offsets in Path of the query's characters,
	// for highlighting.
	Positions []int
}

// maxQuery bounds the query scored (a pasted paragraph after an @).
const maxQuery = 256

// Complete returns up to limit files matching query, best first. A file
// matches when the query's characters appear in its path in order (case
// is ignored); matches score more for characters at the start of a path
// element or word, for runs of consecutive characters, for lying in the
// file's base name, and for shorter paths. An empty query lists the
// shallowest files first.
func (ix *Index) Complete(query string, limit int) []Match {
	if limit <= 0 {
		return nil
	}
	if len(query) > maxQuery {
		query = query[:maxQuery]
	}
	q := strings.ToLower(query)
	// Keep the best limit matches in order as they come: limit is a popup's
	// height, so an insertion beats sorting every match.
	top := make([]Match, 0, limit+1)
	better := func(a, b Match) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if len(a.Path) != len(b.Path) {
			return len(a.Path) < len(b.Path)
		}
		return a.Path < b.Path
	}
	for i, f := range ix.files {
		var m Match
		if q == "" {
			m = Match{Path: f, Score: -strings.Count(f, "/")*100 - len(f)}
		} else {
			if !subsequence(ix.lower[i], q) {
				continue
			}
			var ok bool
			if m, ok = score(f, ix.lower[i], q, false); !ok {
				continue
			}
		}
		if len(top) == limit && !better(m, top[limit-1]) {
			continue
		}
		j := sort.Search(len(top), func(k int) bool { return better(m, top[k]) })
		top = append(top, Match{})
		copy(top[j+1:], top[j:])
		top[j] = m
		if len(top) > limit {
			top = top[:limit]
		}
	}
	if q != "" {
		for i := range top {
			top[i], _ = score(top[i].Path, strings.ToLower(top[i].Path), q, true)
		}
	}
	return top
}

// subsequence reports whether q's bytes appear in s in order.
func subsequence(s, q string) bool {
	i := 0
	for j := 0; j < len(s) && i < len(q); j++ {
		if s[j] == q[i] {
			i++
		}
	}
	return i == len(q)
}

// score matches q (lower case) against path greedily from the left,
// preferring for each query character a boundary position when one is
// near; it is a ranking heuristic, not an optimal alignment.
func score(path, lower, q string, positions bool) (Match, bool) {
	orig := path
	if len(lower) != len(path) {
		// Lower-casing changed the length (some non-ASCII letters): judge
		// word boundaries on the lower-case form, whose offsets these are.
		path = lower
	}
	base := strings.LastIndexByte(path, '/') + 1
	var pos []int
	s, prev, i := 0, -2, 0
	for _, qc := range q {
		found := -1
		// Prefer a boundary occurrence of qc ahead, else the first.
		for j := i; j < len(lower); {
			r, size := utf8.DecodeRuneInString(lower[j:])
			if r == qc {
				if found < 0 {
					found = j
				}
				if j == prev+1 || boundary(path, j) {
					found = j
					break
				}
			}
			j += size
		}
		if found < 0 {
			return Match{}, false
		}
		if positions {
			pos = append(pos, found)
		}
		s += 10
		if found == prev+1 {
			s += 15
		}
		if boundary(path, found) {
			s += 20
		}
		if found >= base {
			s += 10
		}
		prev = found
		_, size := utf8.DecodeRuneInString(lower[found:])
		i = found + size
	}
	if strings.HasPrefix(lower[base:], q) {
		s += 50
	}
	if lower == q || lower[base:] == q {
		s += 100
	}
	s -= len(path) / 4
	return Match{Path: orig, Score: s, Positions: pos}, true
}

// boundary reports whether byte i of path starts a path element or a
// word (after / _ - . or a space, or a lower-to-upper case change).
func boundary(path string, i int) bool {
	if i == 0 {
		return true
	}
	switch path[i-1] {
	case '/', '_', '-', '.', ' ':
		return true
	}
	c, p := path[i], path[i-1]
	return c >= 'A' && c <= 'Z' && p >= 'a' && p <= 'z'
}
