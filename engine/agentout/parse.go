// Package agentout reads the final answer of an external agent CLI (Claude
// Code, Gemini CLI, Codex) from what it wrote on stdout, in the output
// formats those CLIs have. It is shared by the run_agent tool and the
// agent model provider.
package agentout

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The output formats an agent CLI may write on stdout.
const (
	Text       = "text"        // the whole output is the answer
	StreamJSON = "stream-json" // claude -p / gemini -p --output-format stream-json
	CodexJSONL = "codex-jsonl" // codex exec --json
)

// Formats lists the output formats, for validation messages.
func Formats() []string { return []string{Text, StreamJSON, CodexJSONL} }

// Parse finds an agent's final answer in its captured output.
// The JSON formats are read line by line; a line that is not a JSON object
// (stderr interleaved, a banner) is skipped. An error event of the format
// is returned as the error, with whatever answer came before it. The loop
// is bounded by the capture, which the runner caps.
func Parse(format, out string) (string, error) {
	switch format {
	case StreamJSON:
		return parseStreamJSON(out)
	case CodexJSONL:
		return parseCodexJSONL(out)
	default:
		return strings.TrimSpace(out), nil
	}
}

// jsonLines calls f with each line of out that is a JSON object.
func jsonLines(out string, f func(m map[string]json.RawMessage)) {
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		f(m)
	}
}

func str(m map[string]json.RawMessage, k string) string {
	var s string
	_ = json.Unmarshal(m[k], &s) // absent or not a string: ""
	return s
}

// errorText renders an error field that is a string or an object with a
// message.
func errorText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	return string(raw)
}

// parseStreamJSON reads Claude Code's and Gemini CLI's stream-json: the
// answer is the "result" event's result (Claude), else the assistant's
// text messages joined (Claude's content blocks, Gemini's deltas); an
// error is a result with is_error (Claude), status "error" (Gemini), or an
// "error" event.
func parseStreamJSON(out string) (string, error) {
	var text strings.Builder
	var result string
	haveResult := false
	var errs []string
	jsonLines(out, func(m map[string]json.RawMessage) {
		switch str(m, "type") {
		case "assistant": // Claude: {"type":"assistant","message":{"content":[{"type":"text","text":...}]}}
			var msg struct {
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			}
			_ = json.Unmarshal(m["message"], &msg) // not a message: no text
			for _, c := range msg.Content {
				if c.Type == "text" {
					text.WriteString(c.Text)
				}
			}
		case "message": // Gemini: {"type":"message","role":"assistant","content":"...","delta":true}
			if str(m, "role") == "assistant" {
				text.WriteString(str(m, "content"))
			}
		case "result":
			var isErr bool
			_ = json.Unmarshal(m["is_error"], &isErr) // absent: false
			if isErr || str(m, "status") == "error" {
				e := errorText(m["error"])
				if e == "" {
					e = str(m, "result")
				}
				if e == "" {
					e = "the agent reported an error"
				}
				errs = append(errs, e)
				return
			}
			if _, ok := m["result"]; ok {
				result, haveResult = str(m, "result"), true
			}
		case "error":
			e := errorText(m["error"])
			if e == "" {
				e = str(m, "message")
			}
			errs = append(errs, e)
		}
	})
	answer := strings.TrimSpace(text.String())
	if haveResult {
		answer = strings.TrimSpace(result)
	}
	if len(errs) > 0 {
		return answer, fmt.Errorf("the agent reported an error: %s", strings.Join(errs, "; "))
	}
	return answer, nil
}

// parseCodexJSONL reads `codex exec --json`: the answer is the last
// completed agent_message item; turn.failed and error events are errors.
func parseCodexJSONL(out string) (string, error) {
	var answer string
	var errs []string
	jsonLines(out, func(m map[string]json.RawMessage) {
		switch str(m, "type") {
		case "item.completed":
			var it struct {
				Type     string `json:"type"`
				ItemType string `json:"item_type"`
				Text     string `json:"text"`
			}
			_ = json.Unmarshal(m["item"], &it) // not an item: ignored
			if it.Type == "agent_message" || it.ItemType == "assistant_message" || it.ItemType == "agent_message" {
				answer = it.Text
			}
		case "turn.failed":
			errs = append(errs, errorText(m["error"]))
		case "error":
			e := str(m, "message")
			if e == "" {
				e = errorText(m["error"])
			}
			errs = append(errs, e)
		}
	})
	answer = strings.TrimSpace(answer)
	if len(errs) > 0 {
		// Codex reports retried stream errors as "error" events and may
		// still finish: an answer after them wins.
		if answer != "" && !containsFailed(out) {
			return answer, nil
		}
		return answer, errors.New("the agent reported an error: " + strings.Join(errs, "; "))
	}
	return answer, nil
}

// containsFailed reports whether a Codex stream has a turn.failed event.
func containsFailed(out string) bool {
	failed := false
	jsonLines(out, func(m map[string]json.RawMessage) {
		if str(m, "type") == "turn.failed" {
			failed = true
		}
	})
	return failed
}
