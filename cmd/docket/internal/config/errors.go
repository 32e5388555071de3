package config

import (
	"fmt"
	"strings"
)

// Error is a configuration error. It names where the bad input came from
// (a file, a flag, an environment variable or a -c override), the key,
// and for files the line. Every error Load returns is an *Error.
type Error struct {
	// Source is a file path, "-c KEY=VALUE", a flag such as "--sandbox",
	// or an environment variable such as "$DOCKET_MODEL".
	Source string
	// Line is the 1-based line in Source when it is a file, else 0.
	Line int
	// Key is the dotted key, or "" when the error is not about one key.
	Key string
	// Msg says what is wrong.
	Msg string
	// Suggestion is the nearest valid spelling, when there is one.
	Suggestion string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": ")
		b.WriteString(e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// where locates keys of one layer for error messages.
type where struct {
	source string
	lines  map[string]int // file layers only
	// prefix is prepended to keys when looking up lines: the profile's
	// keys sit under profiles.NAME in the file.
	prefix []string
}

func (w where) errorf(key []string, suggestion string, format string, a ...any) *Error {
	return &Error{Source: w.source, Line: w.line(key), Key: joinKey(key), Msg: fmt.Sprintf(format, a...), Suggestion: suggestion}
}

// line finds the line of key, or of its nearest enclosing key, in the file.
func (w where) line(key []string) int {
	if w.lines == nil {
		return 0
	}
	full := append(append([]string(nil), w.prefix...), key...)
	for n := len(full); n > 0; n-- {
		if l, ok := w.lines[joinKey(full[:n])]; ok {
			return l
		}
	}
	return 0
}

// Errors is every problem found in one configuration file, in line order,
// so that a user fixes them in one pass. Each is an *Error.
type Errors []*Error

func (es Errors) Error() string {
	if len(es) == 1 {
		return es[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems in the configuration:", len(es))
	for _, e := range es {
		b.WriteString("\n  ")
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns each *Error, so errors.As finds the first.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
