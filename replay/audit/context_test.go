package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/states"
)

// contextSession writes a session whose conversation is compacted and
// whose prompts carry attachments: turn 1 attaches two files (one cut at
// the cap) and an image, runs a call and is compacted automatically;
// turn 2 runs a call, a manual compaction fails and a second succeeds;
// turn 3 attaches a file.
func contextSession(tb testing.TB) string {
	w := newWriter(tb, "0199a1b2-0000-7000-8000-00000000c001", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "what does @notes.txt say, and why does @logs/big.log grow?\nsecond line",
		Images: []string{"data:image/png;base64,iVBORw0KGgo="},
		Attachments: []events.Attachment{
			{Path: "notes.txt", Content: "hello from notes\n", Size: 17},
			{Path: "logs/big.log", Content: strings.Repeat("x", 256), Size: 1 << 20, Truncated: true},
		}})
	w.response("turn-1", 1, shellItem("c1", map[string]any{"command": []string{"cat", "notes.txt"}}))
	w.tr("c1", states.WantsApproval, states.RunSandboxed, states.CauseKnownSafe, "known-safe command")
	w.start("c1", 1, "shell", []string{"cat", "notes.txt"}, wsPlan)
	w.outcome("c1", 1, 0, fsLayers, nil)
	w.tr("c1", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c1", true)
	w.durable("", events.Compaction{TurnID: "turn-1", Trigger: events.CompactAuto, Summary: "The user asked what notes.txt says.\ncat showed: hello from notes.",
		KeptPrompt: true, Replaced: 3, ReplacedDigest: "9f2c4e1a", TokensBefore: 470, Usage: events.Usage{InputTokens: 170, OutputTokens: 12}})
	w.response("turn-1", 2, events.Item{Type: events.ItemMessage, Role: "assistant", Text: "notes.txt says hello"})
	w.durable("", events.TurnEnded{TurnID: "turn-1", Status: events.TurnCompleted})

	w.add("", events.UserTurn{TurnID: "turn-2", Text: "list the files"})
	w.response("turn-2", 3, shellItem("c2", map[string]any{"command": []string{"ls"}}))
	w.tr("c2", states.WantsApproval, states.RunSandboxed, states.CauseKnownSafe, "known-safe command")
	w.start("c2", 1, "shell", []string{"ls"}, wsPlan)
	w.outcome("c2", 1, 0, fsLayers, nil)
	w.tr("c2", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c2", true)
	w.response("turn-2", 4, events.Item{Type: events.ItemMessage, Role: "assistant", Text: "notes.txt"})
	w.durable("", events.TurnEnded{TurnID: "turn-2", Status: events.TurnCompleted})
	w.durable("", events.Compaction{TurnID: "turn-2", Trigger: events.CompactManual, Replaced: 6, ReplacedDigest: "77aa01",
		TokensBefore: 520, Error: "model script exhausted"})
	w.durable("", events.Compaction{TurnID: "turn-2", Trigger: events.CompactManual, Summary: "Files listed: notes.txt.", Replaced: 6,
		ReplacedDigest: "77aa01", TokensBefore: 520, Usage: events.Usage{InputTokens: 200, CachedInputTokens: 150, OutputTokens: 8}})

	w.add("", events.UserTurn{TurnID: "turn-3", Text: "now read @src/main.go",
		Attachments: []events.Attachment{{Path: "src/main.go", Content: "package main\n", Size: 13}}})
	w.response("turn-3", 5, events.Item{Type: events.ItemMessage, Role: "assistant", Text: "it is a main package"})
	w.durable("", events.TurnEnded{TurnID: "turn-3", Status: events.TurnCompleted})
	return w.close()
}

func TestGoldenContextOutputs(t *testing.T) {
	path := contextSession(t)
	for _, tc := range []struct {
		name   string
		writer func(*bytes.Buffer) Sink
	}{
		{"context.txt.golden", func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{}) }},
		{"context.json.golden", func(b *bytes.Buffer) Sink { return NewJSONWriter(b) }},
		{"context.html.golden", func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, streamed(t, path, Options{}, tc.writer))
		})
	}
}

// TestCompactionsAndAttachmentsInOrder checks what the audit says of each
// event and that events and calls come in journal order.
func TestCompactionsAndAttachmentsInOrder(t *testing.T) {
	path := contextSession(t)
	r, err := Build(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Damaged != nil {
		t.Fatalf("damaged: %+v", r.Damaged)
	}
	var kinds []string
	for _, e := range r.Events {
		kinds = append(kinds, e.Kind)
	}
	if got, want := strings.Join(kinds, " "), "attachments compaction compaction compaction attachments"; got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	first := r.Events[0].Prompt
	if first.TurnID != "turn-1" || len(first.Attachments) != 2 || len(first.Images) != 1 ||
		first.Preview != "what does @notes.txt say, and why does @logs/big.log grow? …" {
		t.Errorf("first prompt %+v", first)
	}
	notes, big := first.Attachments[0], first.Attachments[1]
	if notes.Path != "notes.txt" || notes.Size != 17 || notes.SentBytes != 17 || notes.Truncated ||
		notes.SHA256 != "sha256:26e8bded695e0ae25d67f4bc6c72ecd82ace7c92fd48aaf135c1b75863090001" {
		t.Errorf("notes.txt %+v", notes)
	}
	if big.Path != "logs/big.log" || big.Size != 1<<20 || big.SentBytes != 256 || !big.Truncated {
		t.Errorf("big.log %+v", big)
	}
	auto, failed, manual := r.Events[1].Compaction, r.Events[2].Compaction, r.Events[3].Compaction
	if auto.Trigger != "auto" || auto.FirstTurn != "turn-1" || auto.LastTurn != "turn-1" || auto.PreviousSeq != 0 ||
		auto.Replaced != 3 || auto.TokensBefore != 470 || !auto.KeptPrompt || auto.SummarySHA256 != digest(auto.Summary) {
		t.Errorf("auto compaction %+v", auto)
	}
	if failed.Error == "" || failed.Summary != "" || failed.SummarySHA256 != "" {
		t.Errorf("failed compaction %+v", failed)
	}
	// The manual one replaced the rest of turn 1 (after the automatic
	// summary), and turn 2; the failed one changed nothing.
	if manual.FirstTurn != "turn-1" || manual.LastTurn != "turn-2" || manual.PreviousSeq != r.Events[1].Seq || manual.Error != "" {
		t.Errorf("manual compaction %+v (the automatic one is seq %d)", manual, r.Events[1].Seq)
	}
	// Journal order: c1 ran before the automatic compaction, c2 between
	// it and the manual ones.
	c1, c2 := r.Calls[0], r.Calls[1]
	if !(r.Events[0].Seq < c1.Transitions[0].Seq && c1.Transitions[len(c1.Transitions)-1].Seq < r.Events[1].Seq &&
		r.Events[1].Seq < c2.Transitions[0].Seq && c2.Transitions[len(c2.Transitions)-1].Seq < r.Events[2].Seq) {
		t.Errorf("events %+v and calls out of order", r.Events)
	}
	var text bytes.Buffer
	if err := Stream(context.Background(), path, Options{}, NewTextWriter(&text, Options{})); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	order := []string{"prompt      seq", "call c1", "compaction  seq", "call c2", "FAILED   model script exhausted", "Files listed", "src/main.go"}
	at := 0
	for _, s := range order {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order in the text audit:\n%s", s, out)
		}
		at += i
	}
}

// TestNarrowedAuditsListCallsOnly: --call and --unsandboxed are about
// calls; the session's events stay out of them.
func TestNarrowedAuditsListCallsOnly(t *testing.T) {
	path := contextSession(t)
	for _, opts := range []Options{{CallID: "c2"}, {UnsandboxedOnly: true}} {
		r, err := Build(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Events) != 0 {
			t.Errorf("%+v: %d events", opts, len(r.Events))
		}
	}
}

func TestBuiltAndStreamedContextRenderingsAgree(t *testing.T) {
	path := contextSession(t)
	r, err := Build(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, mk := range map[string]func(*bytes.Buffer) Sink{
		"text": func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{}) },
		"json": func(b *bytes.Buffer) Sink { return NewJSONWriter(b) },
		"html": func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) },
	} {
		var built bytes.Buffer
		if err := Emit(r, mk(&built)); err != nil {
			t.Fatal(err)
		}
		got := bytes.ReplaceAll(built.Bytes(), []byte(path), []byte(stablePath))
		if want := streamed(t, path, Options{}, mk); !bytes.Equal(got, want) {
			t.Errorf("%s: built and streamed output differ", name)
		}
	}
	var b bytes.Buffer
	if err := Stream(context.Background(), path, Options{}, NewJSONWriter(&b)); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if marshal(back.Events) != marshal(r.Events) {
		t.Errorf("the JSON's events do not decode to the built report's")
	}
}

// TestMalformedContextRecordsNameTheirSeq: a compaction or user_turn body
// that does not decode, or decodes to what the engine cannot have
// written, is reported as that record unread, named by its seq, and the
// audit goes on: no panic, the other calls audited.
func TestMalformedContextRecordsNameTheirSeq(t *testing.T) {
	good := events.Compaction{TurnID: "turn-1", Trigger: events.CompactAuto, Summary: "s", Replaced: 2}
	for _, tc := range []struct {
		name string
		body any    // a body to append, or nil for raw bytes
		kind string // the raw record's kind
		raw  []byte
		why  string
	}{
		{"compaction of an unknown trigger", mod(good, func(c *events.Compaction) { c.Trigger = "sideways" }), "", nil, `trigger "sideways"`},
		{"compaction replacing -1 items", mod(good, func(c *events.Compaction) { c.Replaced = -1 }), "", nil, "replaced -1 items"},
		{"compaction of negative tokens", mod(good, func(c *events.Compaction) { c.TokensBefore = -7 }), "", nil, "tokens_before is -7"},
		{"compaction without summary or error", mod(good, func(c *events.Compaction) { c.Summary = "" }), "", nil, "neither a summary nor an error"},
		{"compaction with summary and error", mod(good, func(c *events.Compaction) { c.Error = "x" }), "", nil, "both a summary and an error"},
		{"attachment without a path", events.UserTurn{TurnID: "turn-2", Attachments: []events.Attachment{{Content: "x", Size: 1}}}, "", nil, "attachment 1 has no path"},
		{"attachment outside the workspace", events.UserTurn{TurnID: "turn-2", Attachments: []events.Attachment{{Path: "a", Size: 1}, {Path: "../etc/passwd", Size: 1}}}, "", nil, `attachment 2 path "../etc/passwd"`},
		{"attachment by an absolute path", events.UserTurn{TurnID: "turn-2", Attachments: []events.Attachment{{Path: "/etc/passwd", Size: 1}}}, "", nil, "not a clean path"},
		{"attachment of negative size", events.UserTurn{TurnID: "turn-2", Attachments: []events.Attachment{{Path: "a", Size: -3}}}, "", nil, "has size -3"},
		{"compaction body not msgpack", nil, string(events.KindCompaction), []byte{0xc1}, "record"},
		{"compaction body of the wrong shape", nil, string(events.KindCompaction), []byte{0xa3, 'a', 'b', 'c'}, "record"},
		{"user_turn body of the wrong shape", nil, string(events.KindUserTurn), []byte{0x93, 0x01, 0x02, 0x03}, "record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWriter(t, "0199a1b2-0000-7000-8000-00000000c002", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
			w.add("", events.UserTurn{TurnID: "turn-1", Text: "go"})
			w.response("turn-1", 1, shellItem("c1", map[string]any{"command": []string{"ls"}}))
			w.tr("c1", states.WantsApproval, states.RunSandboxed, states.CauseKnownSafe, "known-safe command")
			w.start("c1", 1, "shell", []string{"ls"}, wsPlan)
			w.outcome("c1", 1, 0, fsLayers, nil)
			w.tr("c1", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
			w.output("c1", true)
			var bad uint64
			if tc.body != nil {
				bad = w.durable("", tc.body)
			}
			recs := readAll(t, w.close())
			if tc.body == nil {
				bad = recs[len(recs)-1].Seq + 1
				recs = append(recs, events.Record{Seq: bad, Kind: events.RecordKind(tc.kind), At: t0.UnixNano(), Body: tc.raw})
			}
			var c collector
			var text bytes.Buffer
			if err := Records(context.Background(), "j", recs, Options{}, Tee(&c, NewTextWriter(&text, Options{}))); err != nil {
				t.Fatal(err)
			}
			r := c.report
			if len(r.Calls) != 1 || r.Calls[0].Outcome != OutcomeCompleted {
				t.Errorf("calls %+v: the call before the bad record must still be audited", r.Calls)
			}
			d := r.Damaged
			if !d.Incomplete() || len(d.Unread) != 1 || d.Unread[0].From != bad || d.Unread[0].To != bad ||
				!strings.Contains(d.Unread[0].Why, tc.why) {
				t.Fatalf("damage %+v, want record %d unread because %q", d, bad, tc.why)
			}
			if !strings.Contains(text.String(), "INCOMPLETE") || !strings.Contains(text.String(), d.Unread[0].String()) {
				t.Errorf("the text audit does not name the unread record:\n%s", text.String())
			}
		})
	}
}

// readAll reads every record of a journal.
func readAll(t *testing.T, path string) []events.Record {
	t.Helper()
	var recs []events.Record
	if _, err := journal.ScanAll(path, func(r events.Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

func mod(c events.Compaction, f func(*events.Compaction)) events.Compaction {
	f(&c)
	return c
}

// TestHostileContextStringsAreEscaped: a prompt, an attached path and a
// summary come from the user, the workspace and the model; none may
// reach a terminal or the page raw.
func TestHostileContextStringsAreEscaped(t *testing.T) {
	w := newWriter(t, "0199a1b2-0000-7000-8000-00000000c0ff", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "read \x1b[2J@a.txt\u202e",
		Attachments: []events.Attachment{{Path: "a\x1b]0;pwned\x07.txt", Content: "x", Size: 1}}})
	w.response("turn-1", 1, events.Item{Type: events.ItemMessage, Role: "assistant", Text: "ok"})
	w.durable("", events.Compaction{TurnID: "turn-1", Trigger: events.CompactManual, Replaced: 2,
		Summary: "all fine\x1b[31m\r\nline \u2067two\u2069 <b>&amp;</b>"})
	path := w.close()
	text := streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{}) })
	for _, r := range string(text) {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			t.Fatalf("the text audit shows %U raw:\n%s", r, text)
		}
	}
	for _, want := range []string{"attached a", "pwned", "| all fine", "| line "} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the text audit lacks %q:\n%s", want, text)
		}
	}
	page := streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) })
	parsePage(t, page)
	for _, r := range string(page) {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			t.Fatalf("the HTML audit shows %U raw", r)
		}
	}
	if bytes.Contains(page, []byte("<b>&amp;</b>")) {
		t.Errorf("the summary's markup reached the page unescaped")
	}
}
