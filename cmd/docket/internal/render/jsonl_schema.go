package render

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/egress"
	"github.com/docket-engine/docket/states"
)

// The schema of the exec --json stream (jsonlschema/schema.json) is
// generated from the types above by SchemaJSON, so that the file cannot
// drift from what the renderer writes: a test compares the two.

// schemaField is one field's spec in jsonlschema's format.
type schemaField struct {
	Types    []string     `json:"types"`
	Enum     []string     `json:"enum,omitempty"`
	Object   string       `json:"object,omitempty"`
	Elements *schemaField `json:"elements,omitempty"`
	Values   *schemaField `json:"values,omitempty"`
}

type schemaDoc struct {
	Comment string                            `json:"comment"`
	Events  map[string]map[string]schemaField `json:"events"`
	Items   map[string]map[string]schemaField `json:"items"`
	Objects map[string]map[string]schemaField `json:"objects"`
	// Extensions are the event and item types only --json-extensions
	// emits; a stream without it must not carry them.
	Extensions []string `json:"extensions"`
}

// schemaEvents maps each event type to the struct the renderer writes
// for it; extension marks Docket's own.
func schemaEvents() []schemaEntry {
	return []schemaEntry{
		{EventThreadStarted, threadStartedEvent{}, false},
		{EventTurnStarted, typeOnlyEvent{}, false},
		{EventTurnCompleted, turnCompletedEvent{}, false},
		{EventTurnFailed, turnFailedEvent{}, false},
		{EventItemStarted, itemEvent{}, false},
		{EventItemUpdated, itemEvent{}, false},
		{EventItemCompleted, itemEvent{}, false},
		{EventError, errorEvent{}, false},
		{EventCallTransition, transitionEvent{}, true},
		{EventApprovalRequested, approvalEvent{}, true},
		{EventSessionParked, parkedEvent{}, true},
		{EventContextWarning, contextEvent{}, true},
		{EventContextCompacted, compactedEvent{}, true},
		{EventNetworkDecision, networkDecisionEvent{}, true},
		{EventNetworkConnection, networkConnectionEvent{}, true},
	}
}

func schemaItems() []schemaEntry {
	return []schemaEntry{
		{ItemAgentMessage, textItem{}, false},
		{ItemReasoning, textItem{}, false},
		{ItemCommandExecution, commandItem{}, false},
		{ItemFileChange, fileChangeItem{}, false},
		{ItemMCPToolCall, mcpItem{}, false},
		{ItemCollabToolCall, collabItem{}, false},
		{ItemToolCall, toolCallItem{}, true},
	}
}

type schemaEntry struct {
	name      string
	v         any
	extension bool
}

// schemaObjects names the nested object types.
func schemaObjects() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[usageJSON]():         "usage",
		reflect.TypeFor[messageJSON]():       "message",
		reflect.TypeFor[engine.FileChange](): "change",
		reflect.TypeFor[collabAgentState]():  "agent_state",
		reflect.TypeFor[mcpResultJSON]():     "mcp_result",
	}
}

// schemaEnums are the values of string fields that have a fixed set, by
// "type.field" (the JSON names); "*.status" is every item's status.
func schemaEnums() map[string][]string {
	var st, ev []string
	for _, s := range states.States() {
		st = append(st, string(s))
	}
	for _, e := range states.Table() {
		ev = append(ev, string(e.Event))
	}
	running := []string{string(engine.StatusInProgress), string(engine.StatusCompleted), string(engine.StatusFailed)}
	return map[string][]string{
		EventCallTransition + ".from":     st,
		EventCallTransition + ".to":       st,
		EventCallTransition + ".event":    ev,
		EventApprovalRequested + ".kind":  {string(events.ApprovalExec), string(events.ApprovalPatch), string(events.ApprovalMCP)},
		EventApprovalRequested + ".phase": {string(events.PhaseInitial), string(events.PhaseRetry)},
		ItemCommandExecution + ".status":  append(slices.Clone(running), string(engine.StatusDeclined)),
		ItemFileChange + ".status":        running,
		ItemMCPToolCall + ".status":       running,
		ItemCollabToolCall + ".status":    running,
		ItemCollabToolCall + ".tool":      {collabSpawnAgent},
		ItemToolCall + ".status":          running,
		"change.kind":                     {"add", "delete", "update"},
		EventNetworkDecision + ".answer": {string(events.NetworkAllowOnce), string(events.NetworkAllowSession),
			string(events.NetworkAllowAlways), string(events.NetworkDeny)},
		EventNetworkDecision + ".protocol":   networkProtocols(),
		EventNetworkConnection + ".protocol": networkProtocols(),
		"agent_state.status": {"pending_init", collabAgentRunning, collabAgentInterrupted, collabAgentCompleted,
			collabAgentErrored, "shutdown", "not_found"},
	}
}

// networkProtocols are the egress proxy's protocols, as it records them.
func networkProtocols() []string {
	return []string{string(egress.ProtoConnect), string(egress.ProtoHTTP), string(egress.ProtoSOCKS5)}
}

// nullable lists the fields that may be null although their Go type
// cannot say so (a slice the renderer may leave nil).
func nullable() map[string]bool {
	return map[string]bool{EventApprovalRequested + ".proposed_amendment": true}
}

// SchemaJSON generates the schema of the exec --json stream from the
// renderer's types, in jsonlschema's format.
func SchemaJSON() ([]byte, error) {
	doc := schemaDoc{
		Comment: "Generated from cmd/docket/internal/render (SchemaJSON); do not edit: go test ./cmd/docket/internal/render -run TestSchemaFileIsGenerated -update. " +
			"For each event type and item type, exactly the fields a line may and must carry: the JSON types allowed (string, integer, boolean, array, object, null, any), an enum for strings, the object spec for objects, the element spec for arrays, the value spec for maps. " +
			"extensions: the types only --json-extensions emits.",
		Events: map[string]map[string]schemaField{}, Items: map[string]map[string]schemaField{}, Objects: map[string]map[string]schemaField{},
	}
	g := &schemaGen{doc: &doc, names: schemaObjects(), enums: schemaEnums(), nullable: nullable()}
	for _, e := range schemaEvents() {
		doc.Events[e.name] = g.object(e.name, reflect.TypeOf(e.v))
		if e.extension {
			doc.Extensions = append(doc.Extensions, e.name)
		}
	}
	for _, e := range schemaItems() {
		doc.Items[e.name] = g.object(e.name, reflect.TypeOf(e.v))
		if e.extension {
			doc.Extensions = append(doc.Extensions, "item:"+e.name)
		}
	}
	if g.err != nil {
		return nil, g.err
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

type schemaGen struct {
	doc      *schemaDoc
	names    map[reflect.Type]string
	enums    map[string][]string
	nullable map[string]bool
	err      error
}

// object is the spec of a struct's JSON fields; where names it for enums.
func (g *schemaGen) object(where string, t reflect.Type) map[string]schemaField {
	out := map[string]schemaField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		key := where + "." + name
		if strings.HasPrefix(where, "item.") && name == "item" {
			out[name] = schemaField{Types: []string{"object"}, Object: "any"}
			continue
		}
		spec := g.field(key, f.Type)
		if enum, ok := g.enums[key]; ok {
			spec.Enum = enum
		}
		if g.nullable[key] && !slices.Contains(spec.Types, "null") {
			spec.Types = append(spec.Types, "null")
		}
		out[name] = spec
	}
	return out
}

func (g *schemaGen) field(key string, t reflect.Type) schemaField {
	if t == reflect.TypeFor[json.RawMessage]() {
		return schemaField{Types: []string{"any"}}
	}
	switch t.Kind() {
	case reflect.String:
		return schemaField{Types: []string{"string"}}
	case reflect.Bool:
		return schemaField{Types: []string{"boolean"}}
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint64, reflect.Uint32, reflect.Uint:
		return schemaField{Types: []string{"integer"}}
	case reflect.Interface:
		return schemaField{Types: []string{"any"}}
	case reflect.Pointer:
		s := g.field(key, t.Elem())
		s.Types = append(s.Types, "null")
		return s
	case reflect.Slice:
		el := g.field(key+"[]", t.Elem())
		if t.Elem().Kind() == reflect.Interface {
			el = schemaField{Types: []string{"object"}, Object: "any"}
		}
		return schemaField{Types: []string{"array"}, Elements: &el}
	case reflect.Map:
		el := g.field(key+"{}", t.Elem())
		return schemaField{Types: []string{"object"}, Values: &el}
	case reflect.Struct:
		name, ok := g.names[t]
		if !ok || name == "" {
			g.err = fmt.Errorf("schema: %s: struct %s has no object name", key, t)
			return schemaField{Types: []string{"object"}}
		}
		if _, done := g.doc.Objects[name]; !done {
			g.doc.Objects[name] = nil
			g.doc.Objects[name] = g.object(name, t)
		}
		return schemaField{Types: []string{"object"}, Object: name}
	}
	g.err = fmt.Errorf("schema: %s: no JSON type for %s", key, t)
	return schemaField{}
}
