package events_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// One BodyEncoder, used for every record of every committed journal in
// turn, gives the bytes EncodeBody gives and the journal holds: reuse
// carries nothing from one body into the next.
func TestBodyEncoderMatchesEncodeBody(t *testing.T) {
	files, _ := filepath.Glob("../testdata/journals/*.docket")
	more, _ := filepath.Glob("../testdata/journals/causes/*.docket")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("found %d journals under ../testdata/journals", len(files))
	}
	var enc events.BodyEncoder
	n := 0
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
		err := journal.Scan(f, 1, func(r events.Record) error {
			body, err := r.Decode()
			if err != nil {
				return err
			}
			want, err := events.EncodeBody(body)
			if err != nil {
				return err
			}
			got, err := enc.Encode(body)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) || !bytes.Equal(got, r.Body) {
				t.Fatalf("%s seq %d (%s): the reused encoder wrote %x, EncodeBody %x, the journal %x", f, r.Seq, r.Kind, got, want, r.Body)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	t.Logf("%d records from %d journals", n, len(files))
}

// The hand-written encoding of a transition gives the reflecting
// encoder's bytes at every string length where msgpack's header changes
// form (fixstr, str8, str16, str32), and for empty fields.
func TestBodyEncoderTransitionFastPath(t *testing.T) {
	s := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name string
		tr   events.Transition
	}{
		{"all empty", events.Transition{}},
		{"a call's move", events.Transition{CallID: "c1", From: "wantsApproval", Event: "approve", To: "approved", Cause: "policy", Reason: "auto"}},
		{"fixstr's longest", events.Transition{CallID: s(31), Reason: s(31)}},
		{"str8's shortest and longest", events.Transition{CallID: s(32), Reason: s(255)}},
		{"str16's shortest and longest", events.Transition{From: s(256), Reason: s(65535)}},
		{"str32", events.Transition{Reason: s(65536), Cause: "é, not ASCII"}},
	}
	var enc events.BodyEncoder
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := events.EncodeBody(tc.tr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := enc.Encode(tc.tr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("fast path wrote %x…, the reflecting encoder %x…", got[:min(len(got), 64)], want[:min(len(want), 64)])
			}
			var back events.Transition
			if err := msgpack.Unmarshal(got, &back); err != nil || back != tc.tr {
				t.Fatalf("decoded %+v (%v), want %+v", back, err, tc.tr)
			}
		})
	}
}

// The hand-written encoding of a tool output gives the reflecting
// encoder's bytes, empty or not, success or not, at each string header form.
func TestBodyEncoderToolOutputFastPath(t *testing.T) {
	s := func(n int) string { return strings.Repeat("o", n) }
	tests := []struct {
		name string
		out  events.ToolOutput
	}{
		{"all empty", events.ToolOutput{}},
		{"a shell call's", events.ToolOutput{CallID: "c1", Type: "function_call_output", Output: "ok\n", Success: true}},
		{"str8", events.ToolOutput{CallID: s(32), Output: s(255)}},
		{"str16", events.ToolOutput{Output: s(65535), Success: true}},
		{"str32", events.ToolOutput{Type: "custom_tool_call_output", Output: s(70000)}},
	}
	var enc events.BodyEncoder
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := events.EncodeBody(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			got, err := enc.Encode(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("fast path wrote %x…, the reflecting encoder %x…", got[:min(len(got), 64)], want[:min(len(want), 64)])
			}
		})
	}
}

// The fast paths write a fixed list of fields: a field added to Transition
// or ToolOutput must fail here rather than go silently unencoded. Any
// strings (invalid UTF-8, control bytes, every header length the fuzzer
// reaches) give the reflecting encoder's bytes.
func FuzzBodyEncoderFastPaths(f *testing.F) {
	for v, fields := range map[any]int{events.Transition{}: 6, events.ToolOutput{}: 4} {
		if n := reflect.TypeOf(v).NumField(); n != fields {
			f.Fatalf("%T has %d fields, not %d: the hand-written encoding in bodyenc_fast.go no longer covers them all", v, n, fields)
		}
	}
	f.Add("c1", "wantsApproval", "approve", "approved", "policy", "auto", true)
	f.Add("", "", "", "", "", "\xff\x00é", false)
	f.Add(strings.Repeat("x", 31), strings.Repeat("x", 32), strings.Repeat("x", 255), strings.Repeat("x", 256), "", strings.Repeat("x", 65536), true)
	var enc events.BodyEncoder
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g string, ok bool) {
		for _, body := range []any{
			events.Transition{CallID: a, From: b, Event: c, To: d, Cause: e, Reason: g},
			events.ToolOutput{CallID: a, Type: b, Output: g, Success: ok},
		} {
			want, err := events.EncodeBody(body)
			if err != nil {
				t.Fatal(err)
			}
			got, err := enc.Encode(body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%T: fast path wrote %x, the reflecting encoder %x", body, got, want)
			}
		}
	})
}
