package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/states/policy"
)

// fileDecodeError turns go-toml's errors into an *Error naming the file,
// the key and the line. Of several unknown keys it reports the first.
func fileDecodeError(path string, err error) *Error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		de := sm.Errors[0]
		line, _ := de.Position()
		key := []string(de.Key())
		msg := "unknown key"
		s := policy.Nearest(key[len(key)-1], validKeys(key[:len(key)-1]))
		if s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		if n := len(sm.Errors); n > 1 {
			msg += fmt.Sprintf(" (and %d more unknown keys)", n-1)
		}
		return &Error{Source: path, Line: line, Key: joinKey(key), Msg: msg, Suggestion: s, Err: err}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		key := []string(de.Key())
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if m := typeMismatch().FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("wrong type: want %s, got a TOML %s", describeType(m[2]), m[1])
		} else if len(key) == 0 {
			msg = "invalid TOML: " + msg
		}
		return &Error{Source: path, Line: line, Key: joinKey(key), Msg: msg, Err: err}
	}
	return &Error{Source: path, Msg: err.Error(), Err: err}
}

var typeMismatch = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^cannot decode TOML (\w+) into .* of type (\S+)$`)
})

func describeType(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool" || t == "*bool":
		return "a boolean"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "[]string":
		return "an array of strings"
	case strings.HasPrefix(t, "map["):
		return "a table"
	case strings.HasPrefix(t, "config."):
		return "a table"
	}
	return t
}

// validKeys lists the keys the schema allows inside the table at path,
// for suggesting the nearest spelling of an unknown key.
func validKeys(path []string) []string {
	t := reflect.TypeOf(fileDoc{})
	for i := 0; i < len(path); i++ {
		f, ok := fieldByTag(t, path[i])
		if !ok {
			return nil
		}
		t = f.Type
		if t.Kind() == reflect.Map {
			// The next part is the table's own name (a provider, a server
			// or a profile); skip it.
			i++
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
	}
	var keys []string
	collectTags(t, &keys)
	sort.Strings(keys)
	return keys
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			if sf, ok := fieldByTag(f.Type, name); ok {
				return sf, true
			}
			continue
		}
		if tagName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func collectTags(t reflect.Type, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			collectTags(f.Type, out)
			continue
		}
		if n := tagName(f); n != "" && n != "-" {
			*out = append(*out, n)
		}
	}
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}
