package replay_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/replay"
)

// capture remembers every request a model was sent.
type capture struct {
	model.Model
	mu   sync.Mutex
	reqs []model.Request
}

func (c *capture) Respond(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	return c.Model.Respond(ctx, req, onDelta)
}

const (
	msg1        = `{"output":[{"type":"message","content":"first answer"}],"usage":{"input_tokens":150,"output_tokens":10}}`
	msg2        = `{"output":[{"type":"message","content":"second answer"}],"usage":{"input_tokens":30,"output_tokens":5}}`
	summaryLine = `{"compact":true,"output":[{"type":"message","content":"The user asked twice; both answered."}],"usage":{"input_tokens":160,"output_tokens":9}}`
)

// contextSession starts a session on a MemLog with the scripted model.
func contextSession(t *testing.T, limit int64, lines ...string) (*engine.Session, *enginetest.MemLog, *capture) {
	t.Helper()
	m, err := script.Parse("script", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	mdl := &capture{Model: m}
	log := &enginetest.MemLog{}
	ws := t.TempDir()
	s, err := engine.Start(engine.Config{SessionID: "s-ctx", Cwd: ws, Home: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "read-only", Model: "gpt-5-codex", AutoCompactTokenLimit: limit},
		Plan:    events.SandboxPlan{Mode: events.SandboxReadOnly}, Rules: []events.RuleSource{},
		Model: mdl, Approver: flags(), Runner: &enginetest.FakeRunner{},
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, log)
	if err != nil {
		t.Fatal(err)
	}
	return s, log, mdl
}

func kinds(recs []events.Record) []events.RecordKind {
	var out []events.RecordKind
	for _, r := range recs {
		out = append(out, r.Kind)
	}
	return out
}

// TestCompactionReplays records sessions with compactions and verifies
// each: the recorded summary is fed back, so the replay sends the model
// the same conversation (the model_request digests match).
func TestCompactionReplays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		limit int64
		lines []string
		drive func(t *testing.T, s *engine.Session)
		// items is what the last request sent the model.
		items []string
		// compactErr is set when the compaction is meant to fail.
		compactErr bool
	}{
		{name: "manual compaction between turns", lines: []string{msg1, summaryLine, msg2},
			drive: func(t *testing.T, s *engine.Session) {
				mustTurn(t, s, "one")
				r, err := s.Compact(ctx)
				if err != nil || r.Replaced != 2 || r.Summary != "The user asked twice; both answered." {
					t.Fatalf("Compact = %+v, %v", r, err)
				}
				mustTurn(t, s, "two")
			},
			items: []string{engine.SummaryPrefix + "The user asked twice; both answered.", "two"}},
		{name: "automatic compaction at the limit", limit: 100, lines: []string{msg1, summaryLine, msg2},
			drive: func(t *testing.T, s *engine.Session) {
				mustTurn(t, s, "one")
				mustTurn(t, s, "two")
			},
			// The second turn's prompt is kept before the summary.
			items: []string{"two", engine.SummaryPrefix + "The user asked twice; both answered."}},
		{name: "no second compaction when the first could not get under the limit", limit: 5,
			lines: []string{msg1, summaryLine, msg2, `{"output":[{"type":"message","content":"third answer"}],"usage":{"input_tokens":60,"output_tokens":5}}`},
			drive: func(t *testing.T, s *engine.Session) {
				mustTurn(t, s, "one")
				mustTurn(t, s, "two")   // compacts: the summary alone is over 5 tokens
				mustTurn(t, s, "three") // over the limit, but compacting cannot help
			},
			items: []string{"two", engine.SummaryPrefix + "The user asked twice; both answered.", "second answer", "three"}},
		{name: "a failed compaction leaves the conversation", lines: []string{msg1, msg2}, compactErr: true,
			drive: func(t *testing.T, s *engine.Session) {
				mustTurn(t, s, "one")
				_, err := s.Compact(ctx)
				var ce *engine.CompactError
				if !errors.As(err, &ce) || !errors.Is(err, script.ErrNoCompaction) {
					t.Fatalf("Compact = %v; want a CompactError wrapping ErrNoCompaction", err)
				}
				mustTurn(t, s, "two")
			},
			items: []string{"one", "first answer", "two"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, log, mdl := contextSession(t, tc.limit, tc.lines...)
			tc.drive(t, s)
			recs := log.Records()
			var comp *events.Compaction
			for _, r := range recs {
				if r.Kind == events.KindCompaction {
					b, _ := r.Decode()
					comp = b.(*events.Compaction)
				}
			}
			if comp == nil || (comp.Error != "") != tc.compactErr {
				t.Fatalf("compaction record %+v in %v", comp, kinds(recs))
			}
			last := mdl.reqs[len(mdl.reqs)-1]
			var got []string
			for _, it := range last.Items {
				got = append(got, it.Text)
			}
			if strings.Join(got, "|") != strings.Join(tc.items, "|") {
				t.Fatalf("last request items %q, want %q", got, tc.items)
			}
			res, err := replay.Verify(ctx, recs, replay.Options{})
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if res.Compared == 0 {
				t.Fatal("verify compared nothing")
			}
		})
	}
}

// TestReplayWithAnotherCompactLimitDiverges: the automatic compaction is
// decided from the recorded limit; replaying under a configuration without
// one does not compact, and the replay names the first record that
// differs.
func TestReplayWithAnotherCompactLimitDiverges(t *testing.T) {
	t.Parallel()
	s, log, _ := contextSession(t, 100, msg1, summaryLine, msg2)
	mustTurn(t, s, "one")
	mustTurn(t, s, "two")
	cfg := events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "read-only", Model: "gpt-5-codex"}
	_, err := replay.Verify(context.Background(), log.Records(), replay.Options{Config: &cfg})
	var d *replay.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("verify without the limit = %v; want a divergence", err)
	}
}

// TestAttachmentsReachTheModelAndReplay: an attachment is journaled with
// the prompt, sent inside the user message, and fed back by replay.
func TestAttachmentsReachTheModelAndReplay(t *testing.T) {
	t.Parallel()
	s, log, mdl := contextSession(t, 0, msg1)
	att := events.Attachment{Path: "notes.txt", Content: "hello\n", Size: 6}
	if _, err := s.TurnWithInput(context.Background(), engine.TurnInput{Text: "read @notes.txt", Attachments: []events.Attachment{att}}); err != nil {
		t.Fatal(err)
	}
	sent := mdl.reqs[0].Items[0].Text
	if want := "read @notes.txt\n\n<attached_file path=\"notes.txt\">\nhello\n</attached_file>"; sent != want {
		t.Fatalf("the model was sent %q, want %q", sent, want)
	}
	if _, err := replay.Verify(context.Background(), log.Records(), replay.Options{}); err != nil {
		t.Fatalf("verify: %v", err)
	}
}

func mustTurn(t *testing.T, s *engine.Session, prompt string) {
	t.Helper()
	res, err := s.Turn(context.Background(), prompt)
	if err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("turn %q: %+v, %v", prompt, res, err)
	}
}

// TestJournalCutAroundACompactionVerifies: a process that died anywhere
// around an automatic compaction (before its summary came back, right after
// it was journaled, or before the next response) leaves a journal that
// verifies: replay stops where the process did.
func TestJournalCutAroundACompactionVerifies(t *testing.T) {
	t.Parallel()
	s, log, _ := contextSession(t, 100, msg1, summaryLine, msg2)
	mustTurn(t, s, "one")
	mustTurn(t, s, "two")
	recs := log.Records()
	at := -1
	for i, r := range recs {
		if r.Kind == events.KindCompaction {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no compaction in %v", kinds(recs))
	}
	for cut := at - 1; cut <= len(recs); cut++ {
		if _, err := replay.Verify(context.Background(), recs[:cut], replay.Options{}); err != nil {
			t.Errorf("journal cut after %d of %d records (%v): %v", cut, len(recs), recs[cut-1].Kind, err)
		}
	}
}
