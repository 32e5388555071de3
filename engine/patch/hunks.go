package patch

import (
	"fmt"
	"slices"
)

// replacement replaces n lines at index at with the lines of with.
type replacement struct {
	at, n int
	with  []string
}

// applyHunks locates every hunk of an Update in content and returns the new
// content. Hunks are searched in order, each after the previous one.
func applyHunks(op Op, content string) ([]byte, error) {
	tf := splitText(content)
	lines := tf.lines
	m := newMatcher(lines)
	reps := make([]replacement, 0, len(op.Hunks))
	cursor := 0
	for hi, h := range op.Hunks {
		where := ""
		if hi > 0 {
			where = fmt.Sprintf("after hunk %d", hi)
		}
		herr := func(isCtx bool, want []string, found []int, err error) error {
			he := &HunkError{Path: op.Path, Hunk: hi + 1, Line: h.Line, Context: isCtx, Where: where, Lines: want, Err: err}
			for _, f := range found {
				he.Matches = append(he.Matches, f+1)
			}
			return he
		}
		anchored := false
		for _, ctx := range h.Context {
			found := m.seek([]string{ctx}, cursor, false)
			if len(found) == 0 {
				return nil, herr(true, []string{ctx}, nil, ErrNoMatch)
			}
			if !anchored && len(found) > 1 {
				return nil, herr(true, []string{ctx}, found, ErrAmbiguous)
			}
			cursor, anchored = found[0]+1, true
			where = fmt.Sprintf("after the @@ line %q (file line %d)", ctx, cursor)
		}
		if len(h.Old) == 0 {
			at := cursor
			if !anchored { // Codex: a pure insertion goes at the end, before a final blank line
				at = len(lines)
				if at > 0 && lines[at-1] == "" {
					at--
				}
			}
			reps = append(reps, replacement{at: at, with: h.New})
			continue
		}
		if h.EOF {
			where = "at the end of the file"
		}
		pat, with := h.Old, h.New
		found := m.seek(pat, cursor, h.EOF)
		if len(found) == 0 && pat[len(pat)-1] == "" {
			// The trailing empty line usually stands for the file's final
			// newline, which splitText does not turn into a line.
			pat = pat[:len(pat)-1]
			if len(with) > 0 && with[len(with)-1] == "" {
				with = with[:len(with)-1]
			}
			found = m.seek(pat, cursor, h.EOF)
		}
		if len(found) == 0 {
			return nil, herr(false, h.Old, nil, ErrNoMatch)
		}
		if !anchored && len(found) > 1 {
			return nil, herr(false, h.Old, found, ErrAmbiguous)
		}
		reps = append(reps, replacement{at: found[0], n: len(pat), with: keepContext(h, with, lines[found[0]:found[0]+len(pat)])})
		cursor = found[0] + len(pat)
	}
	slices.SortStableFunc(reps, func(a, b replacement) int { return a.at - b.at })
	size := len(lines)
	for _, r := range reps {
		size += len(r.with) - r.n
	}
	out := make([]string, 0, size)
	pos := 0
	for _, r := range reps {
		if r.at < pos {
			return nil, &FileError{Kind: KindUpdate, Path: op.Path, Line: op.Line,
				Err: fmt.Errorf("hunks overlap at file line %d", r.at+1)}
		}
		out = append(out, lines[pos:r.at]...)
		out = append(out, r.with...)
		pos = r.at + r.n
	}
	out = append(out, lines[pos:]...)
	return tf.join(out), nil
}

// keepContext returns with, its context lines replaced by the file lines
// they matched (matched holds the file lines the hunk's old lines matched).
func keepContext(h Hunk, with, matched []string) []string {
	if len(h.keep) != len(h.New) {
		return with
	}
	var out []string
	for i := range with {
		k := h.keep[i]
		if k < 0 || k >= len(matched) || matched[k] == with[i] {
			continue
		}
		if out == nil {
			out = slices.Clone(with)
		}
		out[i] = matched[k]
	}
	if out == nil {
		return with
	}
	return out
}
