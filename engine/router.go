package engine

import (
	"fmt"
	"sort"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// Call is a tool call normalised from a model output item: one shape
// whatever the item type.
type Call struct {
	ID      string
	Name    string
	Kind    model.ToolKind // how the model sent it
	Payload string         // function arguments (JSON text) or custom input
}

// callsOf extracts the tool calls of a response, in order.
func callsOf(items []events.Item) []Call {
	var out []Call
	for _, it := range items {
		switch it.Type {
		case events.ItemFunctionCall:
			out = append(out, Call{ID: it.CallID, Name: it.Name, Kind: model.ToolFunction, Payload: it.Arguments})
		case events.ItemCustomToolCall:
			out = append(out, Call{ID: it.CallID, Name: it.Name, Kind: model.ToolCustom, Payload: it.Input})
		case events.ItemShellCall:
			out = append(out, Call{ID: it.CallID, Name: NativeShellName, Kind: model.ToolShell, Payload: it.Arguments})
		case events.ItemApplyPatchCall:
			out = append(out, Call{ID: it.CallID, Name: NativeApplyPatchName, Kind: model.ToolApplyPatch, Payload: it.Arguments})
		}
	}
	return out
}

// outputItem is the conversation item that carries a call's result back.
func outputItem(c Call, output string) events.Item {
	return outputItemOK(c, output, false)
}

// outputItemOK is outputItem for a call whose success is known: the
// Responses API's apply_patch output says it.
func outputItemOK(c Call, output string, ok bool) events.Item {
	switch c.Kind {
	case model.ToolCustom:
		return events.Item{Type: events.ItemCustomToolCallOutput, CallID: c.ID, Output: output}
	case model.ToolShell:
		return events.Item{Type: events.ItemShellCallOutput, CallID: c.ID, Output: nativeShellText(output)}
	case model.ToolApplyPatch:
		status := "failed"
		if ok {
			status = "completed"
		}
		return events.Item{Type: events.ItemApplyPatchCallOutput, CallID: c.ID, Output: output, Status: status}
	}
	return events.Item{Type: events.ItemFunctionCallOutput, CallID: c.ID, Output: output}
}

// Registry maps tool names to handlers. The model sees only the specs.
type Registry struct {
	tools map[string]Tool
}

// NewRegistry returns a registry holding tools.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add registers a tool; a second tool of the same name is an error.
func (r *Registry) Add(t Tool) error {
	name := t.Spec().Name
	if _, dup := r.tools[name]; dup {
		return fmt.Errorf("tool %q registered twice", name)
	}
	r.tools[name] = t
	return nil
}

// Lookup returns the handler for a tool name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Specs returns the tool specs, sorted by name so requests are stable.
func (r *Registry) Specs() []model.ToolSpec {
	out := make([]model.ToolSpec, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t.Spec())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Infos describes the registered tools for the session-started record.
func (r *Registry) Infos() []events.ToolInfo {
	specs := r.Specs()
	out := make([]events.ToolInfo, 0, len(specs))
	for _, s := range specs {
		info := events.ToolInfo{Name: s.Name, Kind: s.Kind.String(), ParallelSafe: r.tools[s.Name].ParallelSafe()}
		if d, ok := r.tools[s.Name].(interface{ Info() events.ToolInfo }); ok {
			info = d.Info()
		}
		out = append(out, info)
	}
	return out
}
