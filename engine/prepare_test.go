package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/states/policy"
)

// errInjectedCommit is the write-ahead commit failure startLog injects.
var errInjectedCommit = errors.New("injected: the disk refused the commit")

// startLog is the real bbolt journal whose commit of an exec_started
// record first watches the call being prepared: it waits for the call's
// stub (the preparation got that far), then watches the workspace for a
// while, noting whether the command's marker appeared before the record
// was durable. fail makes that commit fail instead of committing.
type startLog struct {
	j      *journal.Journal
	stub   string // a stub the call's preparation makes
	marker string // what the command creates
	fail   bool

	mu          sync.Mutex
	pending     bool // an exec_started appended and not committed
	prepared    bool // the stub was seen while the commit was held
	ranTooEarly bool // the marker existed before the record was durable
}

func (l *startLog) Append(at time.Time, callID string, body any) (events.Record, error) {
	rec, err := l.j.Append(at, callID, body)
	if err == nil && rec.Kind == events.KindExecStarted {
		l.mu.Lock()
		l.pending = true
		l.mu.Unlock()
	}
	return rec, err
}

func (l *startLog) Commit() error {
	l.mu.Lock()
	pending := l.pending
	l.pending = false
	l.mu.Unlock()
	if !pending {
		return l.j.Commit()
	}
	// Bounded waits: a preparation that never comes shows as prepared
	// false, not as a hang.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, err := os.Stat(l.stub); err == nil {
			l.mu.Lock()
			l.prepared = true
			l.mu.Unlock()
			break
		}
	}
	// A window in which a command started early would write its marker.
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		if _, err := os.Stat(l.marker); err == nil {
			l.mu.Lock()
			l.ranTooEarly = true
			l.mu.Unlock()
			break
		}
	}
	if l.fail {
		return errInjectedCommit
	}
	return l.j.Commit()
}

// TestPreparedCallStartsOnlyOnceDurable: a session's sandboxed call is
// prepared (its stubs held, its command sent to the session's sandbox
// server) while its exec_started record is committed, and its command,
// a real process writing a marker, starts only after: once when the
// commit succeeds, never when it fails, and in that case the prepared
// call is undone (no stub left) before the turn ends.
func TestPreparedCallStartsOnlyOnceDurable(t *testing.T) {
	caps := sandbox.Probe()
	mode, _ := policy.ParseSandboxMode("workspace-write")
	tests := []struct {
		name      string
		fail      bool
		wantLines int
	}{
		{name: "a durable record lets the prepared command run once", wantLines: 1},
		{name: "a failed commit abandons the prepared call unrun", fail: true, wantLines: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			plan := workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, ws, "", false)
			if err := caps.Check(plan); err != nil || !(caps.Root || caps.UserNamespaces) {
				t.Skipf("no sandbox server on this machine: %v", err)
			}
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(ws, "marker")
			mdl, err := script.Parse("prepare", []byte(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["sh","-c","echo ran >> marker"]}}]}
{"output":[{"type":"message","content":"done"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			j, err := journal.Create(home, "prepare", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { j.Close() })
			log := &startLog{j: j, stub: filepath.Join(ws, ".git"), marker: marker, fail: tt.fail}
			walks, servers := &gitwalk.Cache{}, &sandbox.Servers{Binary: exe}
			t.Cleanup(func() { _ = servers.Close(); _ = walks.Close() })
			runner := &engine.ProcessRunner{HelperPath: exe, Caps: &caps, GitWalks: walks, Launcher: servers}
			s, err := engine.Start(engine.Config{SessionID: "prepare", Home: home, Cwd: ws,
				Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
				Plan:    plan, Model: mdl, Approver: &enginetest.ScriptedApprover{}, Runner: runner,
				Tools: []engine.Tool{engine.ShellTool{}}}, log)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := s.Turn(ctx, "go")
			if tt.fail {
				if !errors.Is(err, errInjectedCommit) {
					t.Fatalf("turn: %v %+v, want the injected commit error", err, res)
				}
			} else if err != nil || res.Status != events.TurnCompleted {
				t.Fatalf("turn: %v %+v", err, res)
			}
			log.mu.Lock()
			prepared, early := log.prepared, log.ranTooEarly
			log.mu.Unlock()
			if !prepared {
				t.Errorf("the call's stub %s never appeared while its record was being committed: nothing was prepared early", log.stub)
			}
			if early {
				t.Errorf("the command ran before its exec_started record was durable")
			}
			b, err := os.ReadFile(marker)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if got := strings.Count(string(b), "ran\n"); got != tt.wantLines {
				t.Errorf("the command ran %d times, want %d", got, tt.wantLines)
			}
			// The stubs go before the call returns, abandoned or not.
			if _, err := os.Lstat(log.stub); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("stub %s left after the call: %v", log.stub, err)
			}
		})
	}
}
