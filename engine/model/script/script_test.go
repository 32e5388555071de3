package script

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

func TestScriptLinesBecomeResponsesInOrder(t *testing.T) {
	m, err := Parse("s.jsonl", []byte(`
# comments and blank lines are skipped
{"output":[{"type":"reasoning","text":"think"},{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["ls"]}}],"usage":{"input_tokens":3,"output_tokens":1}}
{"output":[{"type":"function_call","call_id":"c2","name":"shell","arguments":"{\"command\":[\"pwd\"]}"},{"type":"custom_tool_call","call_id":"c3","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n"}]}
{"output":[{"type":"message","content":[{"type":"output_text","text":"Do"},{"type":"output_text","text":"ne."}]}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r1, _ := m.Respond(ctx, model.Request{}, nil)
	if len(r1.Items) != 2 || r1.Items[0].Text != "think" || r1.Items[1].Arguments != `{"command":["ls"]}` || r1.Usage.InputTokens != 3 {
		t.Fatalf("first response %+v", r1)
	}
	r2, _ := m.Respond(ctx, model.Request{}, nil)
	if r2.Items[0].Arguments != `{"command":["pwd"]}` || r2.Items[1].Type != events.ItemCustomToolCall || !strings.HasPrefix(r2.Items[1].Input, "*** Begin") {
		t.Fatalf("second response %+v", r2)
	}
	var deltas []string
	r3, _ := m.Respond(ctx, model.Request{}, func(d model.Delta) { deltas = append(deltas, d.Text) })
	if r3.Items[0].Text != "Done." || r3.Items[0].Role != "assistant" || strings.Join(deltas, "") != "Done." {
		t.Fatalf("third response %+v, deltas %q", r3, deltas)
	}
	if _, err := m.Respond(ctx, model.Request{}, nil); !errors.Is(err, ErrExhausted) {
		t.Fatalf("after the last line: %v", err)
	}
}

func TestSkipResumesAfterTheResponsesAlreadyJournaled(t *testing.T) {
	m, _ := Parse("s", []byte("{\"output\":[{\"type\":\"message\",\"content\":\"a\"}]}\n{\"output\":[{\"type\":\"message\",\"content\":\"b\"}]}\n"))
	m.Skip(1)
	r, err := m.Respond(context.Background(), model.Request{}, nil)
	if err != nil || r.Items[0].Text != "b" {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestBadScriptsNameTheLine(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"not JSON", "{\"output\":[]}\nnot json\n", "s.jsonl:2:"},
		{"no output", `{"outputs":[]}`, "s.jsonl:1:"},
		{"unknown item", `{"output":[{"type":"telepathy"}]}`, `unsupported item type "telepathy"`},
		{"call without name", `{"output":[{"type":"function_call","call_id":"c","arguments":{}}]}`, "needs a name"},
		{"custom without input", `{"output":[{"type":"custom_tool_call","call_id":"c","name":"apply_patch"}]}`, "needs name and input"},
		{"item without type", `{"output":[{"call_id":"c"}]}`, `no "type"`},
		{"bad content", `{"output":[{"type":"message","content":42}]}`, "message content"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.jsonl", []byte(tc.text))
			var le *LineError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a LineError mentioning %q", err, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["ls"]}}]}`))
	f.Add([]byte(`{"output":[{"type":"message","content":[{"text":"x"}]}],"usage":{"input_tokens":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse("fuzz", b)
		if err != nil {
			return
		}
		for i := 0; i < m.Len(); i++ {
			if _, err := m.Respond(context.Background(), model.Request{}, func(model.Delta) {}); err != nil {
				t.Fatalf("response %d of a parsed script: %v", i, err)
			}
		}
	})
}

// TestCompactLinesAnswerOnlyCompactions: "compact" lines form their own
// queue, so a compaction request takes the next summary wherever it sits
// in the file, and turn requests never see one.
func TestCompactLinesAnswerOnlyCompactions(t *testing.T) {
	m, err := Parse("s", []byte(`{"output":[{"type":"message","content":"a"}]}
{"compact":true,"output":[{"type":"message","content":"summary 1"}],"usage":{"input_tokens":9,"output_tokens":2}}
{"output":[{"type":"message","content":"b"}]}
{"compact":true,"output":[{"type":"message","content":"summary 2"}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	turn := model.Request{}
	compact := model.Request{Purpose: model.PurposeCompact}
	for i, step := range []struct {
		req  model.Request
		want string
	}{{turn, "a"}, {turn, "b"}, {compact, "summary 1"}, {compact, "summary 2"}} {
		r, err := m.Respond(ctx, step.req, nil)
		if err != nil || r.Items[0].Text != step.want {
			t.Fatalf("step %d: %+v, %v; want %q", i, r, err, step.want)
		}
	}
	if _, err := m.Respond(ctx, compact, nil); !errors.Is(err, ErrNoCompaction) {
		t.Fatalf("no compaction line left: %v", err)
	}
	m.SkipCompactions(1)
	if r, err := m.Respond(ctx, compact, nil); err != nil || r.Items[0].Text != "summary 2" {
		t.Fatalf("after SkipCompactions(1): %+v, %v", r, err)
	}
}

func TestCompactLineNeedsASummary(t *testing.T) {
	_, err := Parse("s.jsonl", []byte(`{"compact":true,"output":[{"type":"reasoning","text":"hmm"}]}`))
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 || !strings.Contains(err.Error(), "summary") {
		t.Fatalf("err = %v; want a LineError at line 1 asking for the summary", err)
	}
}
