package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/otelcoltest"
	"github.com/docket-engine/docket/journal"
)

// TestChatExportsEachSessionToARealCollector drives the built binary's
// chat UI over a real pty with [otel] pointing at the real test collector:
// a turn with one shell call, /new, a second turn in the new session, then
// /quit. Both sessions must reach the collector as a turn span and its
// call span carrying the session's id, which proves the chat starts each
// session's telemetry tap and that switching sessions and quitting flush
// it; both journals still verify-replay.
func TestChatExportsEachSessionToARealCollector(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	col := otelcoltest.Start(t, otelcoltest.Bin(t), otelcoltest.FreePort(t), otelcoltest.FreePort(t))
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	for _, d := range []string{ws, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf("[otel]\nendpoint = \"http://127.0.0.1:%d\"\n", col.GRPC)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each session's scripted model starts from the script's first line.
	script := `{"output":[{"type":"function_call","call_id":"k1","name":"shell","arguments":{"command":["echo","hi"]}}]}
{"output":[{"type":"message","content":"Echoed it."}]}
`
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startChat(t, bin, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write", "--model-script", sp)
	r.scr.waitFor(t, 0, "approvals never")
	at := r.scr.mark()
	r.typeLine("echo something")
	r.idleAfter(at, "Echoed it.")

	at = r.scr.mark()
	r.typeLine("/new")
	r.scr.waitFor(t, at, "new session ")
	r.scr.waitFor(t, at, "Enter send")
	at = r.scr.mark()
	r.typeLine("echo again")
	r.idleAfter(at, "Echoed it.")
	r.typeLine("/quit")
	code, shown := r.wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
	if strings.Contains(shown, "telemetry for session") {
		t.Errorf("the chat says its telemetry was not sent:\n%s", shown)
	}

	files, _, err := journal.List(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%d sessions recorded, want 2 (the first and the /new one)", len(files))
	}
	// What reached the collector, per session: span names and call ids.
	got := map[string][]string{}
	for _, s := range col.Stop(t) {
		id := otelcoltest.Attr(s.Attributes, "docket.session.id")
		got[id] = append(got[id], s.Name+"/"+otelcoltest.Attr(s.Attributes, "docket.call.id"))
	}
	for _, f := range files {
		spans := got[f.ID]
		sort.Strings(spans)
		turn, call := false, false
		for _, s := range spans {
			turn = turn || s == "docket.turn/"
			call = call || (!strings.HasPrefix(s, "docket.turn/") && strings.HasSuffix(s, "/k1"))
		}
		if !turn || !call {
			t.Errorf("session %s reached the collector as %v; want its turn span and the span of call k1 (all sessions seen: %v)", f.ID, spans, got)
		}
		rep := exec.Command(bin, "replay", "--home", home, f.ID)
		if out, err := rep.CombinedOutput(); err != nil || !strings.Contains(string(out), "replay ok") {
			t.Errorf("replay %s: %v\n%s", f.ID, err, out)
		}
	}
}
