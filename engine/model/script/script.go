// Package script is the scripted model provider of CLI.md: a JSON Lines file
// whose every line is the model's whole response to one request. It lets a
// session run with no network and no API key (the demo, the tests).
//
// A line with "compact": true answers a compaction request (the model's
// summary of the conversation, as its message) and no other: turn requests
// and compaction requests each take the next line of their own kind, so a
// script can hold its summaries where the conversation needs them.
package script

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// ErrExhausted is returned when the script has no line left for a request.
var ErrExhausted = errors.New("model script exhausted")

// LineError names the script file and line that could not be parsed.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the parse error.
func (e *LineError) Unwrap() error { return e.Err }

// Model replays the script's responses in order.
//
// A line may carry "agent": "NAME": it is then a response of the subagent
// called NAME (spawn_agent), not of the session itself. ForAgent returns the
// model of one subagent; nested subagents are keyed by their own name.
type Model struct {
	mu        sync.Mutex
	responses []model.Response
	next      int
	// compactions answer compaction requests, in order.
	compactions []model.Response
	nextCompact int
	// agents holds the subagents' lines by name, in script order.
	agents map[string]*agentLines
}

// agentLines are one subagent's turn and compaction lines.
type agentLines struct {
	responses, compactions []model.Response
}

// ForAgent returns a fresh model over the script's lines for the subagent
// called name (none: every request finds the script exhausted). Subagents
// of the same name each get the same lines from the first.
func (m *Model) ForAgent(name string) *Model {
	child := &Model{agents: m.agents}
	if l := m.agents[name]; l != nil {
		child.responses, child.compactions = l.responses, l.compactions
	}
	return child
}

// Load parses a script file.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model script: %w", err)
	}
	return Parse(path, b)
}

// Parse parses script text; name is used in errors.
func Parse(name string, b []byte) (*Model, error) {
	m := &Model{agents: map[string]*agentLines{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		resp, rl, err := parseLine(text)
		if err != nil {
			return nil, &LineError{File: name, Line: line, Err: err}
		}
		switch {
		case rl.Agent != "":
			l := m.agents[rl.Agent]
			if l == nil {
				l = &agentLines{}
				m.agents[rl.Agent] = l
			}
			if rl.Compact {
				l.compactions = append(l.compactions, resp)
			} else {
				l.responses = append(l.responses, resp)
			}
		case rl.Compact:
			m.compactions = append(m.compactions, resp)
		default:
			m.responses = append(m.responses, resp)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &LineError{File: name, Line: line + 1, Err: err}
	}
	return m, nil
}

type rawLine struct {
	ID     string        `json:"id"`
	Agent  string        `json:"agent"`
	Output []rawItem     `json:"output"`
	Usage  *events.Usage `json:"usage"`
	// Compact marks a line that answers a compaction request.
	Compact bool            `json:"compact"`
	Extra   json.RawMessage `json:"-"`
}

type rawItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     *string         `json:"input"`
	Content   json.RawMessage `json:"content"`
	Text      string          `json:"text"`
	Summary   json.RawMessage `json:"summary"`
	Role      string          `json:"role"`
	// Action and Operation are a shell_call's and an apply_patch_call's,
	// as the Responses API sends them.
	Action    json.RawMessage `json:"action"`
	Operation json.RawMessage `json:"operation"`
	// Status is accepted, as the API sends it, and not kept.
	Status string `json:"status"`
}

func parseLine(text []byte) (model.Response, rawLine, error) {
	resp, rl, err := parseRaw(text)
	if err == nil && rl.Compact && finalText(resp.Items) == "" {
		err = errors.New(`a "compact" line needs a message holding the summary`)
	}
	return resp, rl, err
}

// finalText is the text of a response's last message.
func finalText(items []events.Item) string {
	text := ""
	for _, it := range items {
		if it.Type == events.ItemMessage {
			text = it.Text
		}
	}
	return text
}

func parseRaw(text []byte) (model.Response, rawLine, error) {
	var rl rawLine
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rl); err != nil {
		return model.Response{}, rl, fmt.Errorf("not a JSON response object: %w", err)
	}
	if rl.Output == nil {
		return model.Response{}, rl, errors.New(`missing "output" array`)
	}
	resp := model.Response{ID: rl.ID, Attempts: 1}
	if rl.Usage != nil {
		resp.Usage = *rl.Usage
	}
	for i, it := range rl.Output {
		item, err := convert(it)
		if err != nil {
			return model.Response{}, rl, fmt.Errorf("output[%d]: %w", i, err)
		}
		resp.Items = append(resp.Items, item)
	}
	return resp, rl, nil
}

func convert(it rawItem) (events.Item, error) {
	switch it.Type {
	case events.ItemMessage:
		text, err := textOf(it.Content)
		if err != nil {
			return events.Item{}, fmt.Errorf("message content: %w", err)
		}
		if text == "" {
			text = it.Text
		}
		role := it.Role
		if role == "" {
			role = "assistant"
		}
		return events.Item{Type: it.Type, ID: it.ID, Role: role, Text: text}, nil
	case events.ItemReasoning:
		text := it.Text
		if text == "" {
			t, err := textOf(it.Summary)
			if err != nil {
				return events.Item{}, fmt.Errorf("reasoning summary: %w", err)
			}
			text = t
		}
		return events.Item{Type: it.Type, ID: it.ID, Text: text}, nil
	case events.ItemFunctionCall:
		// An empty or repeated call_id is passed on: a real model can send
		// one, and the engine, not the script, must refuse it.
		if it.Name == "" {
			return events.Item{}, errors.New("function_call needs a name")
		}
		args := string(it.Arguments)
		if len(it.Arguments) > 0 && it.Arguments[0] == '"' {
			// arguments given as a string holding JSON, as the API sends it
			if err := json.Unmarshal(it.Arguments, &args); err != nil {
				return events.Item{}, err
			}
		}
		return events.Item{Type: it.Type, ID: it.ID, CallID: it.CallID, Name: it.Name, Arguments: args}, nil
	case events.ItemCustomToolCall:
		if it.Name == "" || it.Input == nil {
			return events.Item{}, errors.New("custom_tool_call needs name and input")
		}
		return events.Item{Type: it.Type, ID: it.ID, CallID: it.CallID, Name: it.Name, Input: *it.Input}, nil
	case events.ItemShellCall:
		if len(it.Action) == 0 || it.Action[0] != '{' {
			return events.Item{}, errors.New(`shell_call needs an "action" object`)
		}
		return events.Item{Type: it.Type, ID: it.ID, CallID: it.CallID, Name: "shell", Arguments: compactJSON(it.Action)}, nil
	case events.ItemApplyPatchCall:
		if len(it.Operation) == 0 || it.Operation[0] != '{' {
			return events.Item{}, errors.New(`apply_patch_call needs an "operation" object`)
		}
		return events.Item{Type: it.Type, ID: it.ID, CallID: it.CallID, Name: "apply_patch", Arguments: compactJSON(it.Operation)}, nil
	case "":
		return events.Item{}, errors.New(`item has no "type"`)
	}
	return events.Item{}, fmt.Errorf("unsupported item type %q", it.Type)
}

// textOf accepts a plain string or an array of {type, text} parts.
func textOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or an array of {text} parts")
	}
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// ErrNoCompaction is returned for a compaction request when the script has
// no "compact" line left.
var ErrNoCompaction = errors.New(`model script has no "compact" line left for a compaction request`)

// Compactions returns how many compaction lines the script holds.
func (m *Model) Compactions() int { return len(m.compactions) }

// SkipCompactions moves past the first n compaction lines, which a resumed
// session has already consumed.
func (m *Model) SkipCompactions(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextCompact = min(n, len(m.compactions))
}

// Len returns how many turn responses the script holds.
func (m *Model) Len() int { return len(m.responses) }

// Skip moves past the first n responses: a resumed session has already
// consumed them, and their answers are in its journal.
func (m *Model) Skip(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next = min(n, len(m.responses))
}

// Respond returns the next scripted response.
func (m *Model) Respond(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if req.Purpose == model.PurposeCompact {
		if m.nextCompact >= len(m.compactions) {
			return model.Response{}, ErrNoCompaction
		}
		r := m.compactions[m.nextCompact]
		m.nextCompact++
		r.Items = append([]events.Item(nil), r.Items...)
		return r, nil
	}
	if m.next >= len(m.responses) {
		return model.Response{}, ErrExhausted
	}
	r := m.responses[m.next]
	m.next++
	r.Items = append([]events.Item(nil), r.Items...)
	if onDelta != nil {
		for _, it := range r.Items {
			if it.Type == events.ItemMessage && it.Text != "" {
				onDelta(model.Delta{Kind: model.DeltaText, Text: it.Text})
			}
		}
	}
	return r, nil
}

// compactJSON is raw without insignificant space, as the provider keeps a
// native tool's action or operation.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
