package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/render/jsonlschema"
	"github.com/docket-engine/docket/engine"
)

type lineItem struct {
	Type string `json:"type"`
	Item struct {
		ID               string `json:"id"`
		AggregatedOutput string `json:"aggregated_output"`
		Status           string `json:"status"`
	} `json:"item"`
}

func decodeLines(t *testing.T, b []byte) []lineItem {
	t.Helper()
	var out []lineItem
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l lineItem
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("bad line %.200s: %v", sc.Bytes(), err)
		}
		out = append(out, l)
	}
	return out
}

// TestItemUpdatedStreamsOutputSoFar: each update carries the whole output
// so far; past the streaming threshold updates thin out geometrically but
// the output only ever grows, and the aggregate is capped.
func TestItemUpdatedStreamsOutputSoFar(t *testing.T) {
	var out bytes.Buffer
	j := NewJSONLWith(&out, JSONLOptions{Extensions: true})
	cmd := []string{"yes"}
	j.Notify(notice(engine.Notice{Type: engine.NoticeCallStarted, CallID: "c1", Tool: "shell", Command: cmd}))
	chunk := strings.Repeat("y\n", 512) // 1 KiB
	const chunks = 2048                 // 2 MiB, past the cap
	for range chunks {
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallOutput, CallID: "c1", Stream: "stdout", Text: chunk}))
	}
	j.Notify(notice(engine.Notice{Type: engine.NoticeCallCompleted, CallID: "c1", Tool: "shell", Command: cmd, Status: engine.StatusCompleted, Text: "final"}))
	lines := decodeLines(t, out.Bytes())
	var updates []string
	for _, l := range lines {
		if l.Type == EventItemUpdated {
			updates = append(updates, l.Item.AggregatedOutput)
		}
	}
	if want := updateEvery / len(chunk); len(updates) < want {
		t.Fatalf("%d updates, want at least one per chunk below %d bytes (%d)", len(updates), updateEvery, want)
	}
	if len(updates) > 200 {
		t.Errorf("%d updates for %d chunks: streaming is not thinned", len(updates), chunks)
	}
	for i := 1; i < len(updates); i++ {
		if !strings.HasPrefix(updates[i], updates[i-1]) || len(updates[i]) <= len(updates[i-1]) {
			t.Fatalf("update %d does not extend update %d", i, i-1)
		}
	}
	if last := updates[len(updates)-1]; len(last) != maxAggregated {
		t.Errorf("last update carries %d bytes, want the cap %d", len(last), maxAggregated)
	}
	end := lines[len(lines)-1]
	if end.Type != EventItemCompleted || end.Item.AggregatedOutput != "final" || end.Item.ID != "item_0" {
		t.Errorf("completion = %+v", end)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("broken pipe")
}

func TestWriteErrorStopsOutputAndIsReported(t *testing.T) {
	w := &failingWriter{}
	j := NewJSONL(w)
	for _, n := range scenarios()["completed"] {
		j.Notify(n)
	}
	if err := j.Err(); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Err() = %v", err)
	}
	if w.n != 1 {
		t.Errorf("%d writes after the first failure, want none", w.n-1)
	}
}

func TestThreadStartedIsEmittedOnce(t *testing.T) {
	var out bytes.Buffer
	j := NewJSONL(&out)
	j.ThreadStarted("s1")
	j.Notify(engine.Notice{Type: engine.NoticeTurnStarted, SessionID: "s2"})
	j.ThreadStarted("s3")
	j.Error("cannot open journal")
	want := `{"type":"thread.started","thread_id":"s1"}
{"type":"turn.started"}
{"type":"error","message":"cannot open journal"}
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestHumanIsSafeForConcurrentUse(t *testing.T) {
	var stdout, stderr bytes.Buffer
	h := NewHuman(&stdout, &stderr, HumanOptions{})
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("c%d", c)
			h.Notify(notice(engine.Notice{Type: engine.NoticeCallStarted, CallID: id, Tool: "shell", Command: []string{"echo", id}}))
			for i := range 20 {
				h.Notify(notice(engine.Notice{Type: engine.NoticeCallOutput, CallID: id, Text: fmt.Sprintf("%s-%d\n", id, i)}))
			}
			h.Notify(notice(engine.Notice{Type: engine.NoticeCallCompleted, CallID: id, Tool: "shell", Status: engine.StatusCompleted}))
		}()
	}
	wg.Wait()
	for c := range 4 {
		for i := range 20 {
			if !strings.Contains(stderr.String(), fmt.Sprintf("c%d-%d\n", c, i)) {
				t.Fatalf("line c%d-%d lost or torn:\n%s", c, i, stderr.String())
			}
		}
	}
}

func BenchmarkJSONLStreamedOutput(b *testing.B) {
	chunk := strings.Repeat("x", 4095) + "\n"
	for b.Loop() {
		j := NewJSONL(discard{})
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallStarted, CallID: "c1", Tool: "shell", Command: []string{"cat", "big"}}))
		for range 256 { // 1 MiB of output
			j.Notify(notice(engine.Notice{Type: engine.NoticeCallOutput, CallID: "c1", Text: chunk}))
		}
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallCompleted, CallID: "c1", Tool: "shell", Status: engine.StatusCompleted}))
	}
	b.SetBytes(256 * 4096)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestParkedStreamEndsWithATurnEvent: a turn that parks still ends the
// stream as Codex's clients expect, with error and turn.failed naming the
// session, and a call that had started is completed, not left open.
func TestParkedStreamEndsWithATurnEvent(t *testing.T) {
	s, err := jsonlschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []bool{false, true} {
		var out bytes.Buffer
		j := NewJSONLWith(&out, JSONLOptions{Extensions: ext})
		j.Notify(notice(engine.Notice{Type: engine.NoticeTurnStarted}))
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallStarted, CallID: "c1", Tool: "shell", Command: []string{"touch", "/etc/x"}}))
		j.Notify(notice(engine.Notice{Type: engine.NoticeCallOutput, CallID: "c1", Text: "denied\n"}))
		j.Notify(notice(engine.Notice{Type: engine.NoticeParked, CallID: "c1"}))
		j.Parked("s1", []string{"c1"})
		schema := s.Codex()
		if ext {
			schema = s
		}
		if _, err := schema.Validate(bytes.NewReader(out.Bytes())); err != nil {
			t.Fatalf("extensions %v: %v\n%s", ext, err, out.Bytes())
		}
		lines := decodeLines(t, out.Bytes())
		n := len(lines)
		if n < 3 || lines[n-3].Type != EventItemCompleted || lines[n-3].Item.Status != string(engine.StatusFailed) ||
			lines[n-2].Type != EventError || lines[n-1].Type != EventTurnFailed {
			t.Fatalf("extensions %v: the stream does not end with the call completed, error and turn.failed:\n%s", ext, out.Bytes())
		}
		if !strings.Contains(out.String(), "docket resume s1 --decisions approved") {
			t.Errorf("the end does not say how to go on:\n%s", out.Bytes())
		}
		if got := strings.Contains(out.String(), `"session.parked"`); got != ext {
			t.Errorf("extensions %v: session.parked present = %v", ext, got)
		}
	}
}
