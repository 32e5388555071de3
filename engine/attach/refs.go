package attach

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ref is one @ reference in a prompt.
type Ref struct {
	// Path is the file named, as written (quotes removed).
	Path string
	// Start and End are the byte offsets of the whole token in the prompt,
	// the @ and any quotes included.
	Start, End int
}

// Token returns the reference as it is written in a prompt: @path, or
// @"path" when the path holds a space or a quote-worthy character.
func Token(path string) string {
	if path == "" || strings.ContainsFunc(path, func(r rune) bool { return unicode.IsSpace(r) || r == '"' }) ||
		strings.ContainsRune(trailingPunct, rune(path[len(path)-1])) {
		return `@"` + path + `"`
	}
	return "@" + path
}

// SyntaxError is a malformed reference: an unterminated quote.
type SyntaxError struct {
	Offset int // byte offset of the @
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("@ reference at byte %d: %s", e.Offset, e.Msg)
}

// trailingPunct is stripped from the end of an unquoted reference, so
// "see @main.go." names main.go; quote a path that ends in one of them.
const trailingPunct = ".,;:!?)]}'\""

// Parse finds the @ references of a prompt and returns the prompt's text
// with every "@@" turned into a literal "@".
//
// An @ starts a reference at the start of the prompt or after white space,
// when a character other than white space or @ follows it; the reference
// runs to the next white space, less trailing punctuation (.,;:!?)]}'"),
// or, written @"...", to the closing quote. "@@" is a literal @ and never
// starts a reference; an @ inside a word (an e-mail address) is text.
func Parse(prompt string) (text string, refs []Ref, err error) {
	var b strings.Builder
	b.Grow(len(prompt))
	for i := 0; i < len(prompt); {
		c := prompt[i]
		if c != '@' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 < len(prompt) && prompt[i+1] == '@' {
			b.WriteByte('@')
			i += 2
			continue
		}
		atStart := i == 0
		if !atStart {
			r, _ := utf8.DecodeLastRuneInString(prompt[:i])
			atStart = unicode.IsSpace(r)
		}
		if !atStart || i+1 >= len(prompt) {
			b.WriteByte(c)
			i++
			continue
		}
		if prompt[i+1] == '"' {
			end := strings.IndexByte(prompt[i+2:], '"')
			if end < 0 {
				return "", nil, &SyntaxError{Offset: i, Msg: `unterminated quote: close it with " or write @@ for a literal @`}
			}
			path := prompt[i+2 : i+2+end]
			stop := i + 2 + end + 1
			if path == "" {
				return "", nil, &SyntaxError{Offset: i, Msg: `empty path in @""`}
			}
			refs = append(refs, Ref{Path: path, Start: i, End: stop})
			b.WriteString(prompt[i:stop])
			i = stop
			continue
		}
		stop := i + 1
		for stop < len(prompt) {
			r, size := utf8.DecodeRuneInString(prompt[stop:])
			if unicode.IsSpace(r) {
				break
			}
			stop += size
		}
		path := strings.TrimRight(prompt[i+1:stop], trailingPunct)
		if path == "" {
			b.WriteString(prompt[i:stop])
			i = stop
			continue
		}
		end := i + 1 + len(path)
		refs = append(refs, Ref{Path: path, Start: i, End: end})
		b.WriteString(prompt[i:end])
		i = end
	}
	return b.String(), refs, nil
}

// Partial returns the reference being typed at the end of input (the text
// after its @, for completion) and where its @ is; ok is false when the
// input does not end inside a reference.
func Partial(input string) (query string, at int, ok bool) {
	at = strings.LastIndexByte(input, '@')
	if at < 0 {
		return "", 0, false
	}
	if at > 0 {
		r, _ := utf8.DecodeLastRuneInString(input[:at])
		if !unicode.IsSpace(r) && r != '@' {
			return "", 0, false
		}
		if r == '@' {
			return "", 0, false // @@ is a literal @
		}
	}
	query = input[at+1:]
	if strings.HasPrefix(query, `"`) {
		q := query[1:]
		if strings.Contains(q, `"`) {
			return "", 0, false
		}
		return q, at, true
	}
	if strings.ContainsFunc(query, unicode.IsSpace) {
		return "", 0, false
	}
	return query, at, true
}
