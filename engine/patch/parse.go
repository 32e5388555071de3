package patch

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Marker lines; they are recognised after trimming surrounding whitespace.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File:"
	deleteMarker = "*** Delete File:"
	updateMarker = "*** Update File:"
	moveMarker   = "*** Move to:"
	eofMarker    = "*** End of File"
)

// Parse reads a patch in Codex's apply_patch format. Errors are *ParseError,
// naming the line and what was expected there; a patch without any file
// operation is an error.
func Parse(text string) (*Patch, error) {
	if i := strings.IndexByte(text, 0); i >= 0 {
		return nil, &ParseError{Line: lineAt(text, i), Msg: "NUL byte in the patch text; apply_patch edits text files only"}
	}
	if !utf8.ValidString(text) {
		return nil, &ParseError{Line: lineAt(text, firstInvalidUTF8(text)), Msg: "the patch text is not valid UTF-8"}
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	first, last := nonBlankBounds(lines, 0, len(lines))
	if first > last {
		return nil, &ParseError{Line: 1, Msg: "the patch is empty; expected '" + beginMarker + "'"}
	}
	start, end, err := patchBody(lines, first, last)
	if err != nil {
		return nil, err
	}
	p := &parser{lines: lines, end: end}
	return p.parse(start)
}

// patchBody checks the Begin and End markers, unwrapping a heredoc if that is
// what surrounds them, and returns the half-open range of body lines.
func patchBody(lines []string, first, last int) (int, int, error) {
	beginOK := strings.TrimSpace(lines[first]) == beginMarker
	endOK := last > first && strings.TrimSpace(lines[last]) == endMarker
	if beginOK && endOK {
		return first + 1, last, nil
	}
	if delim, ok := heredocOpener(lines[first]); ok && last > first && strings.TrimSpace(lines[last]) == delim {
		f, l := nonBlankBounds(lines, first+1, last)
		if f <= l {
			return patchBody(lines, f, l)
		}
		return 0, 0, &ParseError{Line: first + 2, Msg: "the heredoc is empty; expected '" + beginMarker + "'"}
	}
	if !beginOK {
		return 0, 0, &ParseError{Line: first + 1, Msg: fmt.Sprintf("expected '%s' as the first line, got %q", beginMarker, lines[first])}
	}
	if last == first {
		return 0, 0, &ParseError{Line: last + 1, Msg: fmt.Sprintf("expected '%s' as the last line; the patch ends after '%s'", endMarker, beginMarker)}
	}
	return 0, 0, &ParseError{Line: last + 1, Msg: fmt.Sprintf("expected '%s' as the last line, got %q", endMarker, lines[last])}
}

// heredocOpener recognises `<<EOF`, `<<'EOF'`, `<<"EOF"`, optionally after
// `apply_patch`, and returns the delimiter word.
func heredocOpener(line string) (string, bool) {
	s := strings.TrimSpace(line)
	for _, cmd := range []string{"apply_patch", "applypatch"} {
		if rest, ok := strings.CutPrefix(s, cmd); ok {
			s = strings.TrimSpace(rest)
			break
		}
	}
	s, ok := strings.CutPrefix(s, "<<")
	if !ok {
		return "", false
	}
	s = strings.TrimSpace(strings.TrimPrefix(s, "-"))
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') {
		if s[len(s)-1] != s[0] {
			return "", false
		}
		s = s[1 : len(s)-1]
	}
	if s == "" {
		return "", false
	}
	for _, r := range s {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return "", false
		}
	}
	return s, true
}

type parser struct {
	lines []string
	end   int // exclusive end of the body
}

func (p *parser) parse(i int) (*Patch, error) {
	out := &Patch{}
	for i < p.end {
		line := p.lines[i]
		t := strings.TrimSpace(line)
		if t == "" { // blank lines between operations are tolerated
			i++
			continue
		}
		var (
			op  Op
			err error
		)
		switch {
		case strings.HasPrefix(t, addMarker):
			op, i, err = p.add(i)
		case strings.HasPrefix(t, deleteMarker):
			op, err = p.header(i, KindDelete, deleteMarker)
			i++
		case strings.HasPrefix(t, updateMarker):
			op, i, err = p.update(i)
		default:
			msg := fmt.Sprintf("expected '%s path', '%s path' or '%s path', got %q", addMarker, deleteMarker, updateMarker, line)
			if len(out.Ops) > 0 && out.Ops[len(out.Ops)-1].Kind == KindAdd {
				msg += " (every line of an added file starts with '+', blank ones too)"
			}
			return nil, &ParseError{Line: i + 1, Msg: msg}
		}
		if err != nil {
			return nil, err
		}
		out.Ops = append(out.Ops, op)
	}
	if len(out.Ops) == 0 {
		return nil, &ParseError{Line: p.end + 1, Msg: "the patch has no file operations; expected '" + addMarker + " path', '" + deleteMarker + " path' or '" + updateMarker + " path' before '" + endMarker + "'"}
	}
	return out, nil
}

// header parses an operation's header line into an Op with its path.
func (p *parser) header(i int, k ChangeKind, marker string) (Op, error) {
	path := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.lines[i]), marker))
	if path == "" {
		return Op{}, &ParseError{Line: i + 1, Msg: fmt.Sprintf("'%s' needs a file path", marker)}
	}
	return Op{Kind: k, Path: path, Line: i + 1}, nil
}

func (p *parser) add(i int) (Op, int, error) {
	op, err := p.header(i, KindAdd, addMarker)
	if err != nil {
		return op, i, err
	}
	var b strings.Builder
	for i++; i < p.end; i++ {
		rest, ok := strings.CutPrefix(p.lines[i], "+")
		if !ok {
			break
		}
		b.WriteString(rest)
		b.WriteByte('\n')
	}
	op.Contents = b.String()
	return op, i, nil
}

func (p *parser) update(i int) (Op, int, error) {
	op, err := p.header(i, KindUpdate, updateMarker)
	if err != nil {
		return op, i, err
	}
	i++
	if i < p.end {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(p.lines[i]), moveMarker); ok {
			op.MovePath = strings.TrimSpace(rest)
			if op.MovePath == "" {
				return op, i, &ParseError{Line: i + 1, Msg: fmt.Sprintf("'%s' needs a file path", moveMarker)}
			}
			i++
		}
	}
	for i < p.end {
		line := p.lines[i]
		if strings.TrimSpace(line) == "" { // blank lines between hunks
			i++
			continue
		}
		if isOpHeader(line) || strings.HasPrefix(line, "*") {
			break
		}
		var h Hunk
		h, i, err = p.hunk(i, len(op.Hunks) == 0)
		if err != nil {
			return op, i, err
		}
		op.Hunks = append(op.Hunks, h)
	}
	if len(op.Hunks) == 0 && i < p.end && !isOpHeader(p.lines[i]) {
		return op, i, &ParseError{Line: i + 1, Msg: fmt.Sprintf("unexpected %q; '%s %s' needs '@@' followed by ' ', '-' and '+' lines", p.lines[i], updateMarker, op.Path)}
	}
	if len(op.Hunks) == 0 {
		return op, i, &ParseError{Line: op.Line, Msg: fmt.Sprintf("'%s %s' has no hunks; expected '@@' followed by ' ', '-' and '+' lines", updateMarker, op.Path)}
	}
	return op, i, nil
}

// hunk parses one hunk starting at line i: its `@@` lines (optional for the
// first hunk of a file), then its ' ', '-', '+' lines, then an optional
// `*** End of File`.
func (p *parser) hunk(i int, first bool) (Hunk, int, error) {
	h := Hunk{Line: i + 1}
	headers := 0
	for ; i < p.end; i++ {
		ctx, ok := hunkHeader(p.lines[i])
		if !ok {
			break
		}
		headers++
		if ctx != "" {
			h.Context = append(h.Context, ctx)
		}
	}
	if headers == 0 && !first {
		return h, i, &ParseError{Line: i + 1, Msg: fmt.Sprintf("expected an '@@' line to start the next hunk, or a file operation, got %q", p.lines[i])}
	}
	n := 0
loop:
	for ; i < p.end; i++ {
		line := p.lines[i]
		if strings.TrimSpace(line) == eofMarker {
			if n == 0 {
				break
			}
			h.EOF = true
			i++
			break
		}
		if isOpHeader(line) {
			break
		}
		if line == "" { // an empty context line whose leading space was lost
			h.keep = append(h.keep, len(h.Old))
			h.Old, h.New = append(h.Old, ""), append(h.New, "")
			n++
			continue
		}
		switch line[0] {
		case ' ':
			h.keep = append(h.keep, len(h.Old))
			h.Old, h.New = append(h.Old, line[1:]), append(h.New, line[1:])
		case '-':
			h.Old = append(h.Old, line[1:])
		case '+':
			h.keep = append(h.keep, -1)
			h.New = append(h.New, line[1:])
		default:
			if n == 0 {
				return h, i, &ParseError{Line: i + 1, Msg: fmt.Sprintf("unexpected line %q in a hunk; every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added)", line)}
			}
			break loop
		}
		n++
	}
	if n == 0 {
		return h, i, &ParseError{Line: i + 1, Msg: "the hunk has no lines; expected ' ', '-' or '+' lines after '@@'"}
	}
	return h, i, nil
}

// hunkHeader recognises an `@@` line and returns its context text, which is
// empty for a bare `@@`. A unified-diff header `@@ -a,b +c,d @@ text` yields text.
func hunkHeader(line string) (string, bool) {
	t := strings.TrimRightFunc(line, unicode.IsSpace)
	if t == "@@" {
		return "", true
	}
	ctx, ok := strings.CutPrefix(t, "@@ ")
	if !ok {
		return "", false
	}
	ctx = strings.TrimSpace(ctx)
	if rest, ok := unifiedRange(ctx); ok {
		return rest, true
	}
	return ctx, true
}

// unifiedRange strips a unified-diff range `-a[,b] +c[,d] @@` from the start
// of s and returns what follows it.
func unifiedRange(s string) (string, bool) {
	fields := strings.SplitN(s, " ", 4)
	if len(fields) < 3 || fields[2] != "@@" || !isRange(fields[0], '-') || !isRange(fields[1], '+') {
		return "", false
	}
	if len(fields) == 4 {
		return strings.TrimSpace(fields[3]), true
	}
	return "", true
}

func isRange(s string, sign byte) bool {
	if len(s) < 2 || s[0] != sign {
		return false
	}
	a, b, comma := strings.Cut(s[1:], ",")
	return isDigits(a) && (!comma || isDigits(b))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isOpHeader reports whether line starts a new file operation or ends the patch.
func isOpHeader(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, addMarker) || strings.HasPrefix(t, deleteMarker) ||
		strings.HasPrefix(t, updateMarker) || t == endMarker
}

// nonBlankBounds returns the first and last indexes in [from, to) of lines
// that are not blank; first > last when there are none.
func nonBlankBounds(lines []string, from, to int) (int, int) {
	first, last := to, from-1
	for i := from; i < to; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			if first == to {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// lineAt returns the 1-based line number of byte offset off in text.
func lineAt(text string, off int) int {
	return strings.Count(text[:off], "\n") + 1
}

func firstInvalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(s)
}
