package render

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/render/jsonlschema"
	"github.com/docket-engine/docket/engine"
)

// TestJSONLMatchesTheSchema runs every scenario through the JSONL renderer
// and checks every line against the schema; between them the scenarios
// must exercise every event and item type the schema defines.
func TestJSONLMatchesTheSchema(t *testing.T) {
	s, err := jsonlschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	all := jsonlschema.Counts{}
	for name, seq := range scenarios() {
		for _, ext := range []bool{false, true} {
			var out bytes.Buffer
			j := NewJSONLWith(&out, JSONLOptions{Extensions: ext})
			for _, n := range seq {
				j.Notify(n)
			}
			schema := s.Codex()
			if ext {
				schema = s
			}
			counts, err := schema.Validate(&out)
			if err != nil {
				t.Errorf("%s (extensions %v): %v", name, ext, err)
			}
			for k, c := range counts {
				all[k] += c
			}
		}
	}
	for _, typ := range s.EventTypes() {
		if all[typ] == 0 {
			t.Errorf("no scenario emits %s", typ)
		}
	}
	for _, typ := range s.ItemTypes() {
		if all["item:"+typ] == 0 {
			t.Errorf("no scenario emits a %s item", typ)
		}
	}
}

// TestConcurrentNotifyKeepsLinesWhole has many goroutines stream output
// into the renderer at once; every line must still be one valid event.
func TestConcurrentNotifyKeepsLinesWhole(t *testing.T) {
	s, err := jsonlschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	j := NewJSONLWith(&out, JSONLOptions{Extensions: true})
	const calls, chunks = 8, 50
	for c := range calls {
		id := fmt.Sprintf("c%d", c)
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallStarted, CallID: id, Tool: "shell", Command: []string{"echo", id}}))
	}
	var wg sync.WaitGroup
	for c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("c%d", c)
			for i := range chunks {
				j.Notify(notice(engine.Notice{Type: engine.NoticeCallOutput, CallID: id, Text: fmt.Sprintf("%s line %d \"quoted\" \x00\xff\n", id, i)}))
			}
		}()
	}
	wg.Wait()
	for c := range calls {
		id := fmt.Sprintf("c%d", c)
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallCompleted, CallID: id, Tool: "shell", Command: []string{"echo", id}, Status: engine.StatusCompleted}))
	}
	counts, err := s.Validate(&out)
	if err != nil {
		t.Fatal(err)
	}
	if counts["item.updated"] != calls*chunks || counts["item.completed"] != calls {
		t.Errorf("updates %d completions %d, want %d and %d", counts["item.updated"], counts["item.completed"], calls*chunks, calls)
	}
}
