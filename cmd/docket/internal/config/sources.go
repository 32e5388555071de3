package config

import (
	"fmt"
	"strings"
)

// Layers, lowest precedence first.
const (
	LayerDefault  = "default"
	LayerFile     = "file"
	LayerProfile  = "profile"
	LayerProject  = "project"
	LayerEnv      = "env"
	LayerOverride = "override"
	LayerFlag     = "flag"
)

// Source says where one value came from.
type Source struct {
	// Layer is one of the Layer* constants.
	Layer string
	// File is the config file, for the file and profile layers.
	File string
	// Line is the line of the key in File, when known.
	Line int
	// Name is the profile, environment variable, flag or -c text that set
	// the value.
	Name string
}

// String renders the source for debug output: "/h/config.toml:3",
// "profile fast (/h/config.toml:9)", "$DOCKET_MODEL", "-c model=o3".
func (s Source) String() string {
	switch s.Layer {
	case LayerDefault:
		return "built-in default"
	case LayerFile:
		return s.location()
	case LayerProfile:
		return fmt.Sprintf("profile %s (%s)", s.Name, s.location())
	case LayerProject:
		return "project " + s.location()
	}
	return s.Name
}

func (s Source) location() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// errorf builds an Error located where this source set key.
func (s Source) errorf(key []string, suggestion, format string, a ...any) *Error {
	e := &Error{Key: joinKey(key), Msg: fmt.Sprintf(format, a...), Suggestion: suggestion}
	switch s.Layer {
	case LayerFile, LayerProfile, LayerProject:
		e.Source, e.Line = s.File, s.Line
	case LayerDefault:
		e.Source = "built-in defaults"
	default:
		e.Source = s.Name
	}
	return e
}

// Sources maps each leaf key (dotted, as joinKey renders it) to where its
// effective value came from.
type Sources map[string]Source

// Of returns the source of a dotted key; for a table, the source of the
// first of its keys in sort order.
func (s Sources) Of(key string) (Source, bool) {
	if src, ok := s[key]; ok {
		return src, true
	}
	best, found := "", false
	for k := range s {
		if strings.HasPrefix(k, key+".") && (!found || k < best) {
			best, found = k, true
		}
	}
	return s[best], found
}
