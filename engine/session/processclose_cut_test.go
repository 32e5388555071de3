package session_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/docket-engine/docket/replay/audit"
)

// errDiskGone is the journal write error the test injects.
var errDiskGone = errors.New("journal write error: the disk went away")

// breakAtSecondEnd is the engine's fault injection for the close: at the
// second ending_process point (the second process's end about to be
// appended) it breaks the journal, as a full or vanished disk would.
type breakAtSecondEnd struct {
	mu     sync.Mutex
	hits   int
	broken bool
}

func (f *breakAtSecondEnd) Hit(point string) {
	if point != "ending_process" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hits++; f.hits == 2 {
		f.broken = true
	}
}

func (f *breakAtSecondEnd) isBroken() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.broken
}

// breakableLog is the real journal whose appends fail once the fault
// broke it; what it holds until then stays and is committed at its close.
type breakableLog struct {
	engine.Log
	f *breakAtSecondEnd
}

func (l breakableLog) Append(at time.Time, callID string, body any) (events.Record, error) {
	if l.f.isBroken() {
		return events.Record{}, errDiskGone
	}
	return l.Log.Append(at, callID, body)
}

// TestACloseCutShortVerifiesAndLeavesTheEndUnknown: two exec_command
// processes run when the session closes; recording the second's end fails
// (a journal write error injected at the engine's ending_process point).
// Both processes still die, the close says which end it could not record,
// the journal (a real bbolt file) holds the first's end alone, verify
// replay accepts it as a close cut short, the audit says the second's end
// is unknown, and a resume knows the first was closed and the second
// lost, not an invariant broken.
func TestACloseCutShortVerifiesAndLeavesTheEndUnknown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	work, home, token, script := twoSleepsSetup(t)
	fault := &breakAtSecondEnd{}
	s, err := session.Open(context.Background(), session.Options{Workspace: work, Home: home, Model: scripted(t, script),
		Rules: []events.RuleSource{}, Policy: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
		Faults: fault,
		WrapLog: func(_ context.Context, _ string, log engine.Log, _ []events.Record) (engine.Log, func() error, error) {
			return breakableLog{Log: log, f: fault}, func() error { return nil }, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Turn(context.Background(), "start them"); err != nil {
		_ = s.Close()
		t.Fatal(err)
	}
	if ps := s.Engine().Processes(); len(ps) != 2 {
		_ = s.Close()
		t.Fatalf("after the turn the session should hold two running processes, has %+v", ps)
	}
	err = s.Close()
	if !errors.Is(err, errDiskGone) || !strings.Contains(err.Error(), "recording the end of process 1001") {
		t.Fatalf("the close should say the second process's end was not recorded: %v", err)
	}
	if pids := processesWith(t, token); len(pids) != 0 {
		t.Errorf("a process outlived its session: pids %v", pids)
	}
	var ended []int
	if err := journal.Scan(s.JournalPath(), 1, func(r events.Record) error {
		if r.Kind == events.KindProcessEnded {
			b, err := r.Decode()
			if err != nil {
				return err
			}
			ended = append(ended, b.(*events.ProcessEnded).ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ended) != "[1000]" {
		t.Fatalf("the journal should hold the first process's end alone, has %v", ended)
	}
	if _, err := replay.VerifyFile(context.Background(), s.JournalPath(), replay.Options{}); err != nil {
		t.Fatalf("verify replay of a close cut short: %v", err)
	}
	var text strings.Builder
	if err := audit.Stream(context.Background(), s.JournalPath(), audit.Options{}, audit.NewTextWriter(&text, audit.Options{})); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "end unknown: the session's close"); n != 1 || !strings.Contains(text.String(), "session_closed at seq") {
		t.Errorf("the audit should say process 1000 was closed and 1001's end is unknown (%d said unknown):\n%s", n, text.String())
	}
	r, err := session.Resume(context.Background(), s.JournalPath(), session.Options{Home: home, Model: scripted(t, helloScript)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	var got []string
	for _, p := range r.Engine().Processes() {
		got = append(got, fmt.Sprintf("%d %s", p.ID, p.Status))
	}
	if want := "[1000 closed 1001 lost]"; fmt.Sprint(got) != want {
		t.Fatalf("the resumed session's processes %v, want %s", got, want)
	}
}

// copyWithout writes the journal at path to a new one, leaving out the
// process_ended record of process id, as a close that stopped short of it
// (or a hand that removed it) would leave it.
func copyWithout(t *testing.T, path string, id int) string {
	t.Helper()
	var recs []events.Record
	if err := journal.Scan(path, 1, func(r events.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	first, err := recs[0].Decode()
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Create(t.TempDir(), first.(*events.SessionStarted).SessionID, time.Unix(0, recs[0].At))
	if err != nil {
		t.Fatal(err)
	}
	dropped := false
	for _, r := range recs {
		body, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if pe, ok := body.(*events.ProcessEnded); ok && pe.ID == id {
			dropped = true
			continue
		}
		if _, err := j.Append(time.Unix(0, r.At), r.CallID, body); err != nil {
			t.Fatal(err)
		}
	}
	if !dropped {
		t.Fatalf("the journal has no end of process %d", id)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return j.Path()
}

// twoSleepsSetup makes a workspace and a home and a model script that
// starts two long exec_command processes, c1 and c2, whose command lines
// hold token (to find them among the machine's processes).
func twoSleepsSetup(t *testing.T) (work, home, token, script string) {
	t.Helper()
	dir := t.TempDir()
	work, home = filepath.Join(dir, "work"), filepath.Join(dir, "home")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	token = fmt.Sprintf("%d.%d", os.Getpid(), time.Now().UnixNano()%1e6)
	call := func(id, n string) string {
		return `{"output":[{"type":"function_call","call_id":"` + id + `","name":"exec_command","arguments":{"cmd":"sleep 30` + n + token + `","yield_time_ms":250}}]}`
	}
	script = call("c1", "1") + "\n" + call("c2", "2") + "\n" + `{"output":[{"type":"message","content":"started"}]}` + "\n"
	return work, home, token, script
}

// TestAVerifiedCloseMayStopShortButNotSkip: a close records the ends of
// its processes in order. A journal missing the last end (the close cut
// short) verifies; one missing the first end but holding the second (no
// close leaves that) diverges: verify accepts only a prefix.
func TestAVerifiedCloseMayStopShortButNotSkip(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	work, home, _, script := twoSleepsSetup(t)
	s, err := session.Open(context.Background(), session.Options{Workspace: work, Home: home, Model: scripted(t, script),
		Rules: []events.RuleSource{}, Policy: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Turn(context.Background(), "start them"); err != nil {
		_ = s.Close()
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := replay.VerifyFile(context.Background(), s.JournalPath(), replay.Options{}); err != nil {
		t.Fatalf("verify replay of the whole close: %v", err)
	}
	if _, err := replay.VerifyFile(context.Background(), copyWithout(t, s.JournalPath(), 1001), replay.Options{}); err != nil {
		t.Errorf("verify replay of a close cut short before the second end: %v", err)
	}
	_, err = replay.VerifyFile(context.Background(), copyWithout(t, s.JournalPath(), 1000), replay.Options{})
	var d *replay.Divergence
	if !errors.As(err, &d) || d.CallID != "c2" || d.Kind != events.KindProcessEnded {
		t.Errorf("verify replay of a close missing the first end but holding the second should diverge at the second, got %v", err)
	}
}
