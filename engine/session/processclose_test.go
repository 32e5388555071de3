package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
)

// processesWith returns the pids of processes whose command line holds
// token.
func processesWith(t *testing.T, token string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), token) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestAClosedSessionRecordsTheEndOfItsProcesses: an exec_command process
// still running when the session closes is killed, and its end is in the
// journal (a real bbolt file) before it closes: process_ended,
// session_closed, under the call that started it. A resume then says it
// was closed, not lost to a crash, and verify replay recomputes the end.
func TestAClosedSessionRecordsTheEndOfItsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real sandboxed process")
	}
	dir := t.TempDir()
	work, home := filepath.Join(dir, "work"), filepath.Join(dir, "home")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf("%d.%d", os.Getpid(), time.Now().UnixNano()%1e6)
	script := fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"exec_command","arguments":{"cmd":"sleep 300%s","yield_time_ms":250}}]}
{"output":[{"type":"message","content":"started"}]}
`, token)
	s, err := session.Open(context.Background(), session.Options{Workspace: work, Home: home, Model: scripted(t, script),
		Rules: []events.RuleSource{}, Policy: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Turn(context.Background(), "start it"); err != nil {
		_ = s.Close()
		t.Fatal(err)
	}
	if ps := s.Engine().Processes(); len(ps) != 1 || ps[0].Status.String() != "running" {
		_ = s.Close()
		t.Fatalf("after the turn the session should hold one running process, has %+v", ps)
	}
	if len(processesWith(t, token)) == 0 {
		_ = s.Close()
		t.Fatal("the exec_command process is not running")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if pids := processesWith(t, token); len(pids) != 0 {
		t.Errorf("the process outlived its session: pids %v", pids)
	}
	var ended []events.ProcessEnded
	var calls []string
	if err := journal.Scan(s.JournalPath(), 1, func(r events.Record) error {
		if r.Kind == events.KindProcessEnded {
			b, err := r.Decode()
			if err != nil {
				return err
			}
			ended = append(ended, *b.(*events.ProcessEnded))
			calls = append(calls, r.CallID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || ended[0].ID != 1000 || ended[0].How != events.ProcessSessionClosed || ended[0].CallID != "c1" || calls[0] != "c1" {
		t.Fatalf("the journal should record process 1000 of c1 ended by the close, has %+v (filed under %v)", ended, calls)
	}
	if _, err := replay.VerifyFile(context.Background(), s.JournalPath(), replay.Options{}); err != nil {
		t.Fatalf("verify replay of the closed session: %v", err)
	}
	r, err := session.Resume(context.Background(), s.JournalPath(), session.Options{Home: home, Model: scripted(t, helloScript)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	if ps := r.Engine().Processes(); len(ps) != 1 || ps[0].Status.String() != "closed" {
		t.Fatalf("the resumed session should know the process was closed, not lost: %+v", ps)
	}
}
