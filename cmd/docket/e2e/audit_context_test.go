package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// auditEvent is the part of `audit --json`'s events the test reads.
type auditEvent struct {
	Seq        uint64 `json:"seq"`
	Kind       string `json:"kind"`
	Compaction *struct {
		TurnID         string       `json:"turn_id"`
		Trigger        string       `json:"trigger"`
		FirstTurn      string       `json:"first_turn"`
		LastTurn       string       `json:"last_turn"`
		Replaced       int          `json:"replaced_items"`
		ReplacedDigest string       `json:"replaced_digest"`
		TokensBefore   int64        `json:"tokens_before"`
		Usage          events.Usage `json:"usage"`
		KeptPrompt     bool         `json:"kept_prompt"`
		Summary        string       `json:"summary"`
		SummarySHA256  string       `json:"summary_sha256"`
	} `json:"compaction"`
	Prompt *struct {
		TurnID      string `json:"turn_id"`
		Attachments []struct {
			Path      string `json:"path"`
			Size      int64  `json:"size"`
			SentBytes int    `json:"sent_bytes"`
			SHA256    string `json:"sha256"`
			Truncated bool   `json:"truncated"`
		} `json:"attachments"`
	} `json:"prompt"`
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestAuditShowsARealSessionsCompactionAndAttachments runs a real session
// (the binary, the scripted model, the real sandbox) that attaches
// notes.txt and is compacted automatically, then audits its journal in
// every form: each must show the attachment and the compaction, as the
// journal recorded them, in journal order among the calls.
func TestAuditShowsARealSessionsCompactionAndAttachments(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), contextWorkspace(t)
	if r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-c", "model_auto_compact_token_limit=400",
		"--model-script", compactScript(t), "what does @notes.txt say?"); r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	var comp *events.Compaction
	var compSeq, turnSeq uint64
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range readJournal(t, sf.Path) {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch v := b.(type) {
		case *events.Compaction:
			comp, compSeq = v, r.Seq
		case *events.UserTurn:
			turnSeq = r.Seq
		}
	}
	if comp == nil || comp.Summary == "" {
		t.Fatalf("the session was not compacted: %+v", comp)
	}

	r := docket(t, nil, "audit", "--home", home, "--json", "last")
	if r.code != 0 {
		t.Fatalf("audit --json: exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Calls []struct {
			CallID string `json:"call_id"`
		} `json:"calls"`
		Events []auditEvent `json:"events"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(rep.Events) != 2 || rep.Events[0].Kind != "attachments" || rep.Events[1].Kind != "compaction" {
		t.Fatalf("events %+v, want the prompt's attachments then the compaction", rep.Events)
	}
	p, c := rep.Events[0], rep.Events[1]
	if p.Seq != turnSeq || p.Prompt.TurnID != "turn-1" || len(p.Prompt.Attachments) != 1 {
		t.Fatalf("attachments event %+v (user_turn is seq %d)", p, turnSeq)
	}
	if a := p.Prompt.Attachments[0]; a.Path != "notes.txt" || a.Size != 17 || a.SentBytes != 17 || a.Truncated || a.SHA256 != sha("hello from notes\n") {
		t.Errorf("notes.txt as audited: %+v", a)
	}
	cc := c.Compaction
	if c.Seq != compSeq || cc.Trigger != "auto" || cc.TurnID != "turn-1" || cc.FirstTurn != "turn-1" || cc.LastTurn != "turn-1" ||
		cc.Replaced != comp.Replaced || cc.ReplacedDigest != comp.ReplacedDigest || cc.TokensBefore != comp.TokensBefore ||
		cc.Usage.InputTokens != 170 || cc.Usage.OutputTokens != 12 || !cc.KeptPrompt ||
		cc.Summary != comp.Summary || cc.SummarySHA256 != sha(comp.Summary) {
		t.Errorf("compaction as audited %+v, as journaled (seq %d) %+v", cc, compSeq, comp)
	}

	text := docket(t, nil, "audit", "--home", home, "last")
	if text.code != 0 {
		t.Fatalf("audit: exit %d\n%s", text.code, text.stderr)
	}
	at := 0
	for _, want := range []string{"prompt      seq", "attached notes.txt  17 bytes, " + sha("hello from notes\n"), "call c1",
		"compaction  seq", "auto, during turn-1", "kept     the prompt of turn-1", "| The user asked what notes.txt says"} {
		i := strings.Index(text.stdout[at:], want)
		if i < 0 {
			t.Fatalf("%q missing or out of order in the text audit:\n%s", want, text.stdout)
		}
		at += i
	}

	page := filepath.Join(t.TempDir(), "audit.html")
	if r := docket(t, nil, "audit", "--home", home, "--html", page, "last"); r.code != 0 {
		t.Fatalf("audit --html: exit %d\n%s", r.code, r.stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section class="event attachments"`, `<code>notes.txt</code>`, `<section class="event compaction"`, sha(comp.Summary)} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the HTML audit lacks %s", want)
		}
	}

	tree := docket(t, nil, "audit", "--home", home, "--tree", "--json", "last")
	var sessions []struct {
		Events []auditEvent `json:"events"`
	}
	if tree.code != 0 || json.Unmarshal([]byte(tree.stdout), &sessions) != nil || len(sessions) != 1 || len(sessions[0].Events) != 2 {
		t.Errorf("audit --tree --json: exit %d, want one session with both events:\n%s%s", tree.code, tree.stdout, tree.stderr)
	}
	treeText := docket(t, nil, "audit", "--home", home, "--tree", "last")
	if !strings.Contains(treeText.stdout, "compaction  seq") || !strings.Contains(treeText.stdout, "attached notes.txt") {
		t.Errorf("audit --tree lacks the events:\n%s", treeText.stdout)
	}
}

// TestAuditOfAMalformedCompactionNamesItsSeq appends to a real session's
// journal a compaction record the engine cannot have written: the audit
// still reports every other record, names the bad one by its seq and
// exits 1 (incomplete), without a panic.
func TestAuditOfAMalformedCompactionNamesItsSeq(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), contextWorkspace(t)
	if r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-c", "model_auto_compact_token_limit=400",
		"--model-script", compactScript(t), "what does @notes.txt say?"); r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(sf.Path)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := j.Append(time.Now(), "", events.Compaction{TurnID: "turn-1", Trigger: "auto", Replaced: -4, Summary: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--json"}} {
		r := docket(t, nil, append(append([]string{"audit", "--home", home}, args...), "last")...)
		want := "seq " + strconv.FormatUint(bad.Seq, 10) + " (malformed record: compaction replaced -4 items)"
		if r.code != 1 || strings.Contains(r.stderr, "panic") {
			t.Fatalf("audit %v: exit %d, want 1\n%s", args, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "damaged after seq "+strconv.FormatUint(bad.Seq-1, 10)) {
			t.Errorf("audit %v: stderr does not name the record:\n%s", args, r.stderr)
		}
		if len(args) == 0 && !strings.Contains(r.stdout, want) {
			t.Errorf("audit: stdout lacks %q:\n%s", want, r.stdout)
		}
		if len(args) == 0 && !strings.Contains(r.stdout, "call c1") {
			t.Errorf("audit: the session's call is no longer audited:\n%s", r.stdout)
		}
		if len(args) == 1 && !strings.Contains(r.stdout, `"from":`+strconv.FormatUint(bad.Seq, 10)+`,"to":`+strconv.FormatUint(bad.Seq, 10)) {
			t.Errorf("audit --json: the unread record is not listed:\n%s", r.stdout)
		}
	}
}
