package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// stablePath replaces a fixture journal's temporary path in output.
const stablePath = "$HOME/sessions/2026/11/22/session.docket"

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got ---\n%s", name, got)
	}
}

// streamed audits a journal straight into a writer, as the CLI does.
func streamed(t *testing.T, path string, opts Options, mk func(*bytes.Buffer) Sink) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Stream(context.Background(), path, opts, mk(&b)); err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(b.Bytes(), []byte(path), []byte(stablePath))
}

func TestGoldenOutputs(t *testing.T) {
	mixed, danger := mixedSession(t), dangerSession(t)
	text := func(o Options) func(*bytes.Buffer) Sink {
		return func(b *bytes.Buffer) Sink { return NewTextWriter(b, o) }
	}
	jsonw := func(b *bytes.Buffer) Sink { return NewJSONWriter(b) }
	htmlw := func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) }
	tests := []struct {
		name   string
		path   string
		opts   Options
		writer func(*bytes.Buffer) Sink
	}{
		{"mixed.txt.golden", mixed, Options{}, text(Options{})},
		{"mixed.unsandboxed.txt.golden", mixed, Options{UnsandboxedOnly: true}, text(Options{UnsandboxedOnly: true})},
		{"mixed.json.golden", mixed, Options{}, jsonw},
		{"mixed.c3.json.golden", mixed, Options{CallID: "c3"}, jsonw},
		{"mixed.html.golden", mixed, Options{}, htmlw},
		{"danger.txt.golden", danger, Options{}, text(Options{})},
		{"danger.unsandboxed.txt.golden", danger, Options{UnsandboxedOnly: true}, text(Options{UnsandboxedOnly: true})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, streamed(t, tc.path, tc.opts, tc.writer))
		})
	}
}

func TestBuiltAndStreamedRenderingsAgree(t *testing.T) {
	path := mixedSession(t)
	r, err := Build(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text": func(b *bytes.Buffer) error { return WriteText(b, r, Options{}) },
		"json": func(b *bytes.Buffer) error { return WriteJSON(b, r) },
		"html": func(b *bytes.Buffer) error { return WriteHTML(b, r) },
	} {
		var built bytes.Buffer
		if err := write(&built); err != nil {
			t.Fatal(err)
		}
		var mk func(*bytes.Buffer) Sink
		switch name {
		case "text":
			mk = func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{}) }
		case "json":
			mk = func(b *bytes.Buffer) Sink { return NewJSONWriter(b) }
		default:
			mk = func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) }
		}
		got := bytes.ReplaceAll(built.Bytes(), []byte(path), []byte(stablePath))
		if want := streamed(t, path, Options{}, mk); !bytes.Equal(got, want) {
			t.Errorf("%s: built and streamed output differ", name)
		}
	}
}

func TestJSONIsOneObjectInTheCLIShape(t *testing.T) {
	path := mixedSession(t)
	var b bytes.Buffer
	if err := Stream(context.Background(), path, Options{}, NewJSONWriter(&b)); err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(b.Bytes(), &generic); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.Bytes())
	}
	for _, k := range []string{"session_id", "journal", "calls", "policy", "rules", "violations"} {
		if _, ok := generic[k]; !ok {
			t.Errorf("top-level key %q missing", k)
		}
	}
	call := generic["calls"].([]any)[2].(map[string]any)
	for _, k := range []string{"call_id", "tool", "command", "cwd", "final_state", "outcome", "exit_code", "ran_unsandboxed",
		"why_unsandboxed", "transitions", "decisions", "sandbox"} {
		if _, ok := call[k]; !ok {
			t.Errorf("call key %q missing", k)
		}
	}
	tr := call["transitions"].([]any)[0].(map[string]any)
	for _, k := range []string{"seq", "from", "event", "to", "cause", "reason", "at"} {
		if _, ok := tr[k]; !ok {
			t.Errorf("transition key %q missing", k)
		}
	}
	sb := call["sandbox"].(map[string]any)
	if sb["mode"] != "workspace-write" || sb["network"] != false || len(sb["layers"].([]any)) != 4 {
		t.Errorf("sandbox = %v", sb)
	}
	var r Report
	if err := json.Unmarshal(b.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	built, _ := Build(path, Options{})
	if marshal(&r) != marshal(built) {
		t.Errorf("streamed JSON does not decode to the built report")
	}
	if !strings.Contains(b.String(), `"why_unsandboxed":"sandbox denied it (EROFS writing /etc/x); user approved the retry at 2026-11-22T10:00:24Z"`) {
		t.Errorf("c3's why is not in the JSON")
	}
}
