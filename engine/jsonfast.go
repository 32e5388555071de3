package engine

import (
	"encoding/json"
	"strings"
)

// decodeStrictFast decodes payload into v as a json.Decoder with
// DisallowUnknownFields and a check for a second value would, when it can
// tell the two agree: payload decodes with json.Unmarshal (so it is one
// value and nothing after it) and is an object whose keys, unescaped, are
// all exactly among known. It reports false otherwise, v untouched or
// partly filled, and the caller decodes again the strict way, which gives
// the errors users see. The strict way allocates a decoder, a reader and
// a buffer for each call; a verify replay decodes every call's arguments
// (issue 31). v's fields must be of types without nested objects, so that
// only top-level keys can be unknown.
func decodeStrictFast(payload string, v any, known func(string) bool) bool {
	if !plainObjectKeys(payload, known) {
		return false
	}
	return json.Unmarshal([]byte(payload), v) == nil
}

// plainObjectKeys reports whether data starts with an object whose keys
// are all plain (no escapes) and known. It reads keys only; it does not
// check the rest (json.Unmarshal does), and it stops with false at
// anything it does not expect.
func plainObjectKeys(data string, known func(string) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return true
		case ',':
			i++
			continue
		case '"':
		default:
			return false
		}
		end := strings.IndexByte(data[i+1:], '"')
		if end < 0 {
			return false
		}
		key := data[i+1 : i+1+end]
		if strings.IndexByte(key, '\\') >= 0 || !known(key) {
			return false
		}
		i = skipSpace(data, i+2+end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		if i = skipValue(data, skipSpace(data, i+1)); i < 0 {
			return false
		}
	}
}

func skipSpace(data string, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the value at i (-1 when data ends
// first): a string, an array or object (strings inside skipped whole), or
// a scalar up to the next delimiter.
func skipValue(data string, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			if i = skipString(data, i); i < 0 {
				return -1
			}
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	if depth == 0 {
		return i
	}
	return -1
}

// skipString returns the index after the string whose quote is at i.
func skipString(data string, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
