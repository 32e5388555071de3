package patch

import (
	"strings"
	"unicode"
)

// matchPass is one level of leniency when comparing a patch line to a file line.
type matchPass int

// The passes, strictest first, as in Codex's seek_sequence.
const (
	passExact matchPass = iota
	passTrimEnd
	passTrim
	passPunct
	numPasses
)

// matcher finds patch lines in a file's lines, caching each pass's view of
// the file so that many hunks against one file cost one normalisation.
type matcher struct {
	views [numPasses][]string
}

func newMatcher(lines []string) *matcher {
	m := &matcher{}
	m.views[passExact] = lines
	return m
}

func (m *matcher) view(p matchPass) []string {
	if m.views[p] == nil {
		src := m.views[passExact]
		v := make([]string, len(src))
		for i, l := range src {
			v[i] = normalize(p, l)
		}
		m.views[p] = v
	}
	return m.views[p]
}

// seek finds pattern in the file at or after start. It tries each pass in
// turn and, in the first pass with any match, returns every match position
// (ascending). With eof set, only the position that ends the file is tried.
// An empty pattern matches at start.
func (m *matcher) seek(pattern []string, start int, eof bool) []int {
	if len(pattern) == 0 {
		return []int{start}
	}
	n := len(m.views[passExact])
	last := n - len(pattern)
	if last < start {
		return nil
	}
	from := start
	if eof {
		from = last
	}
	pat := make([]string, len(pattern))
	for p := passExact; p < numPasses; p++ {
		for i, l := range pattern {
			pat[i] = normalize(p, l)
		}
		lines := m.view(p)
		var found []int
		for i := from; i <= last; i++ {
			if equalAt(lines, i, pat) {
				found = append(found, i)
			}
		}
		if len(found) > 0 {
			return found
		}
	}
	return nil
}

func equalAt(lines []string, at int, pat []string) bool {
	for j, p := range pat {
		if lines[at+j] != p {
			return false
		}
	}
	return true
}

func normalize(p matchPass, s string) string {
	switch p {
	case passTrimEnd:
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case passTrim:
		return strings.TrimSpace(s)
	case passPunct:
		return foldPunct(strings.TrimSpace(s))
	default:
		return s
	}
}

// foldPunct maps typographic punctuation to ASCII, exactly Codex's table.
func foldPunct(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007',
			'\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, s)
}
