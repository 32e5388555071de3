package config

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/states/policy"
)

// ignoredCodexKey reports whether a key of a Codex config.toml is one
// Docket has no use for (codexNote): Docket accepts it and notes once that
// it ignores it. key is relative to the document, with a profile's
// "profiles.NAME" prefix removed; any key under a listed table is ignored
// with it.
func ignoredCodexKey(key []string) bool {
	ok, _ := codexNote(key)
	return ok
}

// ignoredTopKeys are the top-level keys and tables ignoredCodexKey accepts,
// for suggesting a misspelt one.
func ignoredTopKeys() []string {
	return slices.Sorted(maps.Keys(codexNoteKeys()))
}

// ignoredOverride returns the warning for a -c that sets one of Codex's
// interface keys (tui.*, history.*, ...), which a file may carry too: a
// Codex user's alias or script passing -c tui.notifications=true must not
// make docket refuse to start. "" for every other -c, which is checked as
// usual.
func ignoredOverride(text string) string {
	o, err := ParseOverride(text)
	if err != nil {
		return ""
	}
	rel := o.Key
	if len(rel) > 2 && rel[0] == "profiles" {
		rel = rel[2:]
	}
	if !ignoredCodexKey(rel) {
		return ""
	}
	_, why := codexNote(rel)
	if why == "" {
		why = "Codex's own interface or features"
	}
	return fmt.Sprintf("-c %s: ignoring a Codex setting Docket has no use for: %s (%s)", text, joinKey(o.Key), why)
}

// ignoredKey is one ignored Codex key (or table), where it was written
// and why Docket has no use for it ("" for Codex's own interface).
type ignoredKey struct {
	key  []string
	name string
	line int
	why  string
}

// unknownKeys sorts the keys a strict decode of the file at path did not
// know: Codex's UI-only keys are returned to be warned about once; every
// other key is an *Error naming its line, with the nearest valid spelling.
func unknownKeys(path string, doc tree, sm *toml.StrictMissingError) ([]ignoredKey, Errors) {
	var ignored []ignoredKey
	var errs Errors
	seen := map[string]bool{}
	for _, de := range sm.Errors {
		line, _ := de.Position()
		key := []string(de.Key())
		rel := key
		if len(key) > 2 && key[0] == "profiles" {
			rel = key[2:]
		}
		if ok, why := codexNote(rel); ok {
			name := joinKey(key)
			if v, _ := lookup(doc, key...); v != nil {
				if _, table := v.(tree); table {
					name = "[" + name + "]"
				}
			}
			if !seen[name] {
				seen[name] = true
				ignored = append(ignored, ignoredKey{key: key, name: name, line: line, why: why})
			}
			continue
		}
		e := &Error{Source: path, Line: line, Key: joinKey(key), Err: &de, Msg: "unknown key"}
		valid := validKeys(key[:len(key)-1])
		if len(rel) == 1 {
			// A misspelt Codex key gets its spelling too, not an unrelated key.
			valid = append(valid, ignoredTopKeys()...)
		}
		e.Suggestion = policy.Nearest(key[len(key)-1], valid)
		if e.Suggestion != "" {
			e.Msg += fmt.Sprintf("; did you mean %q?", e.Suggestion)
		}
		errs = append(errs, e)
	}
	slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	slices.SortStableFunc(ignored, func(a, b ignoredKey) int { return cmp.Compare(a.line, b.line) })
	return ignored, errs
}

// ignoredWarning is the one note for every ignored key of a file.
func ignoredWarning(path string, keys []ignoredKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = noteText(k)
	}
	return fmt.Sprintf("%s: Codex settings Docket has no use for, ignored: %s", path, strings.Join(parts, ", "))
}

// removeKey deletes key from t, and the tables it leaves empty.
func removeKey(t tree, key []string) {
	if len(key) == 1 {
		delete(t, key[0])
		return
	}
	sub, ok := t[key[0]].(tree)
	if !ok {
		return
	}
	removeKey(sub, key[1:])
	if len(sub) == 0 {
		delete(t, key[0])
	}
}

// asStrictMissing returns the unknown-key error inside err, if that is
// what err is.
func asStrictMissing(err error) (*toml.StrictMissingError, bool) {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		return sm, true
	}
	return nil, false
}

// Codex's values of model_reasoning_effort, model_reasoning_summary and
// model_verbosity; they go to the provider as the Responses API's
// reasoning.effort, reasoning.summary and text.verbosity.
func reasoningEfforts() []string {
	return []string{"none", "minimal", "low", "medium", "high", "xhigh"}
}
func reasoningSummaries() []string { return []string{"auto", "concise", "detailed", "none"} }
func verbosities() []string        { return []string{"low", "medium", "high"} }
