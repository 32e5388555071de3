package config

import (
	"fmt"
	"strings"
)

// CodexOTel is Codex's [otel] table, which Docket reads beside its own
// keys: environment, exporter (Codex's log exporter), trace_exporter and
// log_user_prompt.
//
//	exporter = "none"
//	exporter = { otlp-http = { endpoint = "...", protocol = "binary", headers = {...} } }
//	exporter = { otlp-grpc = { endpoint = "...", headers = {...} } }
//
// Docket exports traces: trace_exporter is used, else exporter, with an
// endpoint ending in /v1/logs sent to /v1/traces instead. Docket's own
// endpoint, protocol and headers, where set, win.
type CodexOTel struct {
	// Environment becomes the deployment.environment resource attribute.
	Environment   string `toml:"environment"`
	Exporter      any    `toml:"exporter"`
	TraceExporter any    `toml:"trace_exporter"`
	// LogUserPrompt asks Codex to export prompts; Docket never does.
	LogUserPrompt bool `toml:"log_user_prompt"`

	codexNotes []string
}

// notes are what the Codex shape has to say once.
func (o *OTel) notes() []string { return o.codexNotes }

// applyCodex turns Codex's exporter into Docket's endpoint, protocol and
// headers.
func (o *OTel) applyCodex(at func(key ...string) Source) error {
	o.codexNotes = nil
	if o.LogUserPrompt {
		o.codexNotes = append(o.codexNotes, "otel.log_user_prompt: Docket exports spans of turns and tool calls, never prompts")
	}
	name, exp := "trace_exporter", o.TraceExporter
	if exp == nil {
		name, exp = "exporter", o.Exporter
	}
	if exp == nil {
		return nil
	}
	key := []string{"otel", name}
	bad := func(format string, a ...any) error {
		return at(key...).errorf(key, "", format, a...)
	}
	switch v := exp.(type) {
	case string:
		if v != "none" {
			return bad("%q is not an exporter (none, or a table otlp-http or otlp-grpc)", v)
		}
		if o.Endpoint == "" && o.Enabled == nil {
			off := false
			o.Enabled = &off
		}
		return nil
	case map[string]any:
		if len(v) != 1 {
			return bad("want one exporter, otlp-http or otlp-grpc")
		}
		for kind, body := range v {
			t, ok := body.(map[string]any)
			if !ok {
				return bad("%s: want a table", kind)
			}
			return o.codexExporter(name, kind, t, bad)
		}
	}
	return bad("want \"none\" or a table")
}

func (o *OTel) codexExporter(name, kind string, t map[string]any, bad func(string, ...any) error) error {
	var proto string
	switch kind {
	case "otlp-http":
		proto = "http/protobuf"
		if p, _ := t["protocol"].(string); p == "json" {
			o.codexNotes = append(o.codexNotes, fmt.Sprintf("otel.%s: Docket sends OTLP as binary protobuf, not json", name))
		} else if p != "" && p != "binary" {
			return bad("otlp-http.protocol %q: want binary or json", p)
		}
	case "otlp-grpc":
		proto = "grpc"
	default:
		return bad("%q is not an exporter (otlp-http or otlp-grpc)", kind)
	}
	ep, _ := t["endpoint"].(string)
	if ep == "" {
		return bad("%s.endpoint is missing", kind)
	}
	if _, ok := t["tls"]; ok {
		o.codexNotes = append(o.codexNotes, fmt.Sprintf("otel.%s.%s.tls: Docket uses the system's roots; the tls table is ignored", name, kind))
	}
	if base, ok := strings.CutSuffix(ep, "/v1/logs"); ok && kind == "otlp-http" {
		ep = base + "/v1/traces"
	}
	if o.Endpoint == "" {
		o.Endpoint = ep
	}
	if o.Protocol == "" {
		o.Protocol = proto
	}
	if h, ok := t["headers"].(map[string]any); ok && len(o.Headers) == 0 {
		o.Headers = map[string]string{}
		for k, v := range h {
			s, ok := v.(string)
			if !ok {
				return bad("%s.headers.%s: want a string", kind, k)
			}
			o.Headers[k] = s
		}
	}
	return nil
}
