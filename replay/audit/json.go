package audit

import (
	"bytes"
	"encoding/json"
	"io"
)

// NewJSONWriter returns a Sink that writes the report as one JSON object in
// CLI.md's `audit --json` shape, streaming the calls one a line.
func NewJSONWriter(w io.Writer) Sink { return &jsonWriter{w: w} }

type jsonWriter struct {
	w   io.Writer
	n   int
	err error
	// events wait for the end: the calls array is being streamed.
	events []Event
}

func (j *jsonWriter) put(s string) {
	if j.err == nil {
		_, j.err = io.WriteString(j.w, s)
	}
}

func (j *jsonWriter) field(first bool, name string, v any) {
	if !first {
		j.put(",")
	}
	j.put(`"` + name + `":`)
	j.put(marshal(v))
}

func (j *jsonWriter) Begin(h *Report) error {
	j.put("{")
	j.field(true, "session_id", h.SessionID)
	j.field(false, "journal", h.Journal)
	j.field(false, "policy", h.Policy)
	j.field(false, "rules", h.Rules)
	if h.Parent != nil {
		j.field(false, "parent", h.Parent)
	}
	j.put(`,"calls":[`)
	return j.err
}

func (j *jsonWriter) Call(c *Call) error {
	if j.n > 0 {
		j.put(",")
	}
	j.n++
	j.put("\n" + marshal(c))
	return j.err
}

func (j *jsonWriter) End(t *Report) error {
	j.put("\n]")
	if len(j.events) > 0 {
		j.field(false, "events", j.events)
	}
	if len(t.Amendments) > 0 {
		j.field(false, "amendments", t.Amendments)
	}
	if len(t.Processes) > 0 {
		j.field(false, "processes", t.Processes)
	}
	if len(t.Network) > 0 {
		j.field(false, "network", t.Network)
	}
	if len(t.Violations) > 0 {
		j.field(false, "violations", t.Violations)
	}
	if t.Damaged != nil {
		j.field(false, "damaged", t.Damaged)
	}
	j.put("}\n")
	return j.err
}

// marshal encodes v without HTML escaping (commands hold < > & freely).
// The report's types always encode.
func marshal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
