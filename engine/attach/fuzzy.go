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
	var out []Match
	for _, f := range ix.files {
		if q == "" {
			out = append(out, Match{Path: f, Score: -strings.Count(f, "/")*100 - len(f)})
			continue
		}
		if m, ok := score(f, q); ok {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if len(out[i].Path) != len(out[j].Path) {
			return len(out[i].Path) < len(out[j].Path)
		}
		return out[i].Path < out[j].Path
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// score matches q (lower case) against path greedily from the left,
// preferring for each query character a boundary position when one is
// near; it is a ranking heuristic, not an optimal alignment.
func score(path, q string) (Match, bool) {
	lower := strings.ToLower(path)
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
		pos = append(pos, found)
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
	return Match{Path: path, Score: s, Positions: pos}, true
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
