// Package jsonlschema checks a `docket exec --json` stream against the
// schema of CLI.md (schema.json, embedded): every line one JSON object of
// a known type with exactly the fields that type allows, item ids item_N
// in order. Tests of the renderer and black-box tests of the binary share
// it.
package jsonlschema

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

//go:embed schema.json
var schemaJSON []byte

// field is one field's spec: the JSON types allowed (string, integer,
// boolean, array, object, null, any), an enum for strings, the object spec
// for objects and the element spec for arrays. Values is the spec of every
// value of an object used as a map, whose keys are data (ids), not names.
type field struct {
	Types    []string `json:"types"`
	Enum     []string `json:"enum"`
	Object   string   `json:"object"`
	Elements *field   `json:"elements"`
	Values   *field   `json:"values"`
}

type object map[string]field

// Schema is the parsed schema.
type Schema struct {
	Events  map[string]object `json:"events"`
	Items   map[string]object `json:"items"`
	Objects map[string]object `json:"objects"`
	// Extensions are the event types, and the item types as "item:TYPE",
	// that only --json-extensions emits.
	Extensions []string `json:"extensions"`
}

// Codex returns the schema of the default stream, `codex exec --json`'s:
// without the extension events and items.
func (s *Schema) Codex() *Schema {
	c := &Schema{Events: map[string]object{}, Items: map[string]object{}, Objects: s.Objects}
	for k, v := range s.Events {
		if !slices.Contains(s.Extensions, k) {
			c.Events[k] = v
		}
	}
	for k, v := range s.Items {
		if !slices.Contains(s.Extensions, "item:"+k) {
			c.Items[k] = v
		}
	}
	return c
}

// Load parses the embedded schema.
func Load() (*Schema, error) {
	var s Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		return nil, fmt.Errorf("jsonlschema: schema.json: %w", err)
	}
	return &s, nil
}

// EventTypes returns the event types the schema defines, sorted.
func (s *Schema) EventTypes() []string { return sortedKeys(s.Events) }

// ItemTypes returns the item types the schema defines, sorted.
func (s *Schema) ItemTypes() []string { return sortedKeys(s.Items) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LineError says which line broke the schema and how.
type LineError struct {
	Line int
	Err  error
	Text string
}

func (e *LineError) Error() string {
	text := e.Text
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return fmt.Sprintf("line %d: %v: %s", e.Line, e.Err, text)
}

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// Counts says how many lines of each event type a stream had; item types
// are counted under "item:TYPE".
type Counts map[string]int

// Validator checks a stream line by line. Its zero value is not usable;
// make one with NewValidator.
type Validator struct {
	s       *Schema
	line    int
	nextID  int
	itemIDs map[string]bool
	counts  Counts
}

// NewValidator returns a validator for one stream.
func (s *Schema) NewValidator() *Validator {
	return &Validator{s: s, itemIDs: map[string]bool{}, counts: Counts{}}
}

// Counts returns the counts so far.
func (v *Validator) Counts() Counts { return v.counts }

// Validate checks a whole stream; it stops at the first bad line.
func (s *Schema) Validate(r io.Reader) (Counts, error) {
	v := s.NewValidator()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if err := v.Line(sc.Bytes()); err != nil {
			return v.counts, err
		}
	}
	if err := sc.Err(); err != nil {
		return v.counts, fmt.Errorf("line %d: %w", v.line+1, err)
	}
	return v.counts, nil
}

var itemID = regexp.MustCompile(`^item_(0|[1-9][0-9]*)$`)

// Line checks the next line of the stream.
func (v *Validator) Line(b []byte) error {
	v.line++
	if err := v.check(b); err != nil {
		return &LineError{Line: v.line, Err: err, Text: string(b)}
	}
	return nil
}

func (v *Validator) check(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value on the line")
	}
	typ, _ := obj["type"].(string)
	spec, ok := v.s.Events[typ]
	if !ok {
		return fmt.Errorf("unknown event type %q", typ)
	}
	if err := v.object(obj, spec, typ); err != nil {
		return err
	}
	v.counts[typ]++
	if !strings.HasPrefix(typ, "item.") {
		return nil
	}
	item := obj["item"].(map[string]any)
	ityp, _ := item["type"].(string)
	ispec, ok := v.s.Items[ityp]
	if !ok {
		return fmt.Errorf("unknown item type %q", ityp)
	}
	if err := v.object(item, ispec, typ+" "+ityp); err != nil {
		return err
	}
	v.counts["item:"+ityp]++
	id := item["id"].(string)
	if !itemID.MatchString(id) {
		return fmt.Errorf("item id %q is not item_N", id)
	}
	switch {
	case !v.itemIDs[id]:
		if want := fmt.Sprintf("item_%d", v.nextID); id != want {
			return fmt.Errorf("new item id %s, want %s", id, want)
		}
		v.itemIDs[id] = true
		v.nextID++
	case typ == "item.started":
		return fmt.Errorf("item %s started twice", id)
	}
	return nil
}

func (v *Validator) object(obj map[string]any, spec object, where string) error {
	var extra, missing []string
	for k := range obj {
		if _, ok := spec[k]; !ok {
			extra = append(extra, k)
		}
	}
	for k := range spec {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	if len(extra) > 0 || len(missing) > 0 {
		return fmt.Errorf("%s: fields not in the schema %v, missing fields %v", where, extra, missing)
	}
	for _, k := range sortedFieldNames(spec) {
		if err := v.value(obj[k], spec[k], where+"."+k); err != nil {
			return err
		}
	}
	return nil
}

func sortedFieldNames(o object) []string {
	out := make([]string, 0, len(o))
	for k := range o {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func jsonType(x any) string {
	switch n := x.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}

func (v *Validator) value(x any, f field, where string) error {
	t := jsonType(x)
	if !slices.Contains(f.Types, "any") && !slices.Contains(f.Types, t) {
		return fmt.Errorf("%s: a JSON %s, want %v", where, t, f.Types)
	}
	switch t {
	case "string":
		if len(f.Enum) > 0 && !slices.Contains(f.Enum, x.(string)) {
			return fmt.Errorf("%s: %q is not one of %v", where, x, f.Enum)
		}
	case "object":
		if f.Values != nil {
			m := x.(map[string]any)
			for _, k := range sortedKeys(m) {
				if err := v.value(m[k], *f.Values, where+"["+strconv.Quote(k)+"]"); err != nil {
					return err
				}
			}
			return nil
		}
		if f.Object != "" && f.Object != "any" {
			spec, ok := v.s.Objects[f.Object]
			if !ok {
				return fmt.Errorf("%s: the schema names an unknown object %q", where, f.Object)
			}
			return v.object(x.(map[string]any), spec, where)
		}
	case "array":
		if f.Elements != nil {
			for i, e := range x.([]any) {
				if err := v.value(e, *f.Elements, fmt.Sprintf("%s[%d]", where, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
