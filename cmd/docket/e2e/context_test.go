package e2e

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// compactScript is a session whose first response reports more tokens
// than the auto-compact limit the tests set (400): the engine compacts
// before the second request, with the script's "compact" line.
func compactScript(t *testing.T) string {
	return writeScript(t,
		`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["cat","notes.txt"]}}],"usage":{"input_tokens":450,"output_tokens":20}}`,
		`{"compact":true,"output":[{"type":"message","content":"The user asked what notes.txt says; cat showed: hello from notes."}],"usage":{"input_tokens":170,"output_tokens":12}}`,
		`{"output":[{"type":"message","content":"notes.txt says hello"}],"usage":{"input_tokens":40,"output_tokens":5}}`)
}

// contextWorkspace is a workspace with notes.txt, a binary file, a
// directory, and a file outside it reached by a symlink.
func contextWorkspace(t *testing.T) string {
	ws, outside := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{"notes.txt": "hello from notes\n", "bin.dat": "\x00\x01\x02", "sub/a.txt": "a\n"} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	return ws
}

// records decodes a session's journal.
func records(t *testing.T, home string) []any {
	t.Helper()
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, r := range readJournal(t, sf.Path) {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// lastRequest returns the session's last model_request.
func lastRequest(t *testing.T, recs []any) events.ModelRequest {
	t.Helper()
	var last *events.ModelRequest
	for _, b := range recs {
		if mr, ok := b.(*events.ModelRequest); ok {
			last = mr
		}
	}
	if last == nil {
		t.Fatal("no model_request")
	}
	return *last
}

// TestExecAttachesFilesAndCompactsAutomatically runs exec with an @file
// and an auto-compact limit the first response crosses: the file's content
// is journaled with the prompt, the engine compacts before the next
// request (a context.compacted event, a compaction record), the request
// after it carries the summary alone, and verify replay of the journal
// passes.
func TestExecAttachesFilesAndCompactsAutomatically(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), contextWorkspace(t)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--json", "--json-extensions", "-c", "model_auto_compact_token_limit=400",
		"--model-script", compactScript(t), "what does @notes.txt say? mail me at a@@b.c, not @nobody")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "@nobody names no file in the workspace; it is sent as text") {
		t.Errorf("stderr does not warn of @nobody:\n%s", r.stderr)
	}
	for _, want := range []string{`"type":"context.compacted"`, `"summary":"The user asked what notes.txt says`, `"text":"notes.txt says hello"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, r.stdout)
		}
	}
	recs := records(t, home)
	var ut *events.UserTurn
	var comp *events.Compaction
	for _, b := range recs {
		switch v := b.(type) {
		case *events.UserTurn:
			ut = v
		case *events.Compaction:
			comp = v
		}
	}
	if ut == nil || ut.Text != "what does @notes.txt say? mail me at a@b.c, not @nobody" || len(ut.Attachments) != 1 ||
		ut.Attachments[0].Path != "notes.txt" || ut.Attachments[0].Content != "hello from notes\n" {
		t.Fatalf("user_turn %+v: want the prompt with @@ unescaped and notes.txt attached", ut)
	}
	if comp == nil || comp.Trigger != events.CompactAuto || comp.Replaced != 3 || !comp.KeptPrompt ||
		!strings.HasPrefix(comp.Summary, "The user asked") || comp.TokensBefore < 470 {
		t.Fatalf("compaction %+v: want an automatic one replacing prompt, call and output, keeping the prompt", comp)
	}
	if mr := lastRequest(t, recs); mr.ItemCount != 2 {
		t.Fatalf("the request after compaction sent %d items, want the prompt and the summary", mr.ItemCount)
	}
	if r := docket(t, nil, "replay", "--home", home, "last"); r.code != 0 || !strings.HasPrefix(r.stdout, "replay ok: ") {
		t.Fatalf("verify replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestResumeAfterACrashRightAfterCompaction kills the session just after
// the compaction record is durable; resume rebuilds the conversation from
// the summary, so its next request is the one the uninterrupted session
// sent (same digest), and the resumed journal verifies.
func TestResumeAfterACrashRightAfterCompaction(t *testing.T) {
	t.Parallel()
	ws, script := contextWorkspace(t), compactScript(t)
	args := func(home string) []string {
		return []string{"exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-c", "model_auto_compact_token_limit=400",
			"--model-script", script, "what does @notes.txt say?"}
	}
	clean := t.TempDir()
	if r := docket(t, nil, args(clean)...); r.code != 0 {
		t.Fatalf("clean run: exit %d\n%s", r.code, r.stderr)
	}
	want := lastRequest(t, records(t, clean))

	home := t.TempDir()
	if r := run(t, faultBin, []string{"DOCKET_CRASH_AT=after:compaction"}, args(home)...); !r.signaled {
		t.Fatalf("the session did not die at after:compaction: exit %d\n%s", r.code, r.stderr)
	}
	crashed := records(t, home)
	if _, ok := crashed[len(crashed)-1].(*events.Compaction); !ok {
		t.Fatalf("the journal ends with %T, want the compaction", crashed[len(crashed)-1])
	}
	r := docket(t, []string{"DOCKET_CRASH_AT="}, "resume", "--last", "--all", "--home", home)
	if r.code != 0 || !strings.Contains(r.stdout, "notes.txt says hello") {
		t.Fatalf("resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got := lastRequest(t, records(t, home))
	if got.Digest != want.Digest || got.ItemCount != 2 {
		t.Fatalf("resumed request %+v; the uninterrupted session sent %+v", got, want)
	}
	if r := docket(t, nil, "replay", "--home", home, "last"); r.code != 0 {
		t.Fatalf("verify replay of the resumed session: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestExecRefusesBadFileReferencesBeforeStarting: a reference to a
// directory, a binary file, a path outside the workspace or a
// symlink leading out of it is a usage error naming the reference, and no
// session starts.
func TestExecRefusesBadFileReferencesBeforeStarting(t *testing.T) {
	t.Parallel()
	ws := contextWorkspace(t)
	for _, tc := range []struct{ name, prompt, want string }{
		{"directory", "read @sub", "@sub: cannot attach: it is a directory"},
		{"binary", "read @bin.dat", "@bin.dat: cannot attach: it is a binary file"},
		{"outside", "read @../x", "@../x: cannot attach: it is outside the workspace"},
		{"symlink out", "read @link.txt", "@link.txt: cannot attach: it is outside the workspace"},
		{"unterminated quote", `read @"a b`, "unterminated quote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", replies(t, "x"), tc.prompt)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, tc.want)
			}
			if n := len(sessionIDs(t, home)); n != 0 {
				t.Fatalf("%d sessions started", n)
			}
		})
	}
}

// TestReferencedImagesAndFilesReachTheProvider runs exec against a
// Responses server: an @ reference to an image goes as an input_image, one
// to a text file as an attached block of the prompt's text, and the
// provider's reported usage (57 tokens of a 60-token window set in the
// config) brings a context.warning event.
func TestReferencedImagesAndFilesReachTheProvider(t *testing.T) {
	t.Parallel()
	srv := &recordingServer{reply: "a pixel"}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	home, ws := t.TempDir(), contextWorkspace(t)
	if err := os.WriteFile(filepath.Join(ws, "shot.png"), pngBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"OPENAI_BASE_URL=" + hs.URL + "/v1", "OPENAI_API_KEY=sk-e2e", "DOCKET_HOME=" + home}
	r := docket(t, env, "exec", "--skip-git-repo-check", "-C", ws, "--json", "--json-extensions", "-c", "model_context_window=60",
		"what is in @shot.png? see @notes.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	bodies := srv.snapshot()
	if len(bodies) != 1 {
		t.Fatalf("%d requests, want 1", len(bodies))
	}
	for _, want := range []string{`"type":"input_image"`, `"image_url":"data:image/png;base64,iVBORw0KGgo`,
		`see @notes.txt\n\n<attached_file path=\"notes.txt\">\nhello from notes\n</attached_file>`} {
		if !strings.Contains(bodies[0], want) {
			t.Errorf("request lacks %s:\n%s", want, bodies[0])
		}
	}
	if !strings.Contains(r.stdout, `{"type":"context.warning","used_tokens":57,"context_window":60,"estimated":false}`) {
		t.Errorf("no context.warning for 57 of 60 tokens:\n%s", r.stdout)
	}
	for _, b := range records(t, home) {
		if ut, ok := b.(*events.UserTurn); ok && (len(ut.Images) != 1 || len(ut.Attachments) != 1) {
			t.Fatalf("user_turn journals %d images and %d attachments, want 1 and 1", len(ut.Images), len(ut.Attachments))
		}
	}
}
