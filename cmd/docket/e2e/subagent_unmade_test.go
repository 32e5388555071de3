package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	bolt "go.etcd.io/bbolt"
)

// A parent journals a subagent's id (the spawn call's write-ahead record)
// before the child's journal exists; a kill inside journal.Create leaves the
// child's file with nothing committed: empty, or bbolt's empty database
// without Docket's buckets (issue 27, storm finding subagent-unmade at
// after_commit@4 with two subagents at once). The fault binary kills docket
// right after the write-ahead commit (after_commit@3: session start, first
// request, the spawn), and the test leaves at the child's path what the
// kill inside the creation leaves. A resume must make the journal afresh
// and run the child; the tree then verifies. A file the creation cannot
// have left (a link, a user's bbolt database) is never taken over.
func TestResumeRunsASubagentWhoseJournalACrashLeftUnmade(t *testing.T) {
	t.Parallel()
	lines := []string{
		spawnLine([2]string{"p1", `{"prompt":"one","name":"a"}`}),
		says("parent done"),
		agentShell("a", "x1", "echo a >> runs.log"),
		agentSays("a", "a done"),
	}
	type plant func(t *testing.T, path string) (check func(t *testing.T))
	empty := func(t *testing.T, path string) func(*testing.T) {
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	// bbolt's first open writes its empty database (two meta pages, a
	// freelist, an empty root leaf); Docket's buckets come in the
	// transaction after it.
	boltInit := func(t *testing.T, path string) func(*testing.T) {
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	for _, tt := range []struct {
		name string
		// plant leaves the file at the child's path; check, when not nil,
		// runs after the resume (the cases where nothing may be remade).
		plant   plant
		remade  bool
		refusal string // in the resume's output when not remade
	}{
		{"an empty file", empty, true, ""},
		{"bbolt's empty database", boltInit, true, ""},
		{"a symbolic link to an empty file", func(t *testing.T, path string) func(*testing.T) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.WriteFile(target, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			return func(t *testing.T) {
				if info, err := os.Stat(target); err != nil || info.Size() != 0 {
					t.Errorf("the link's target was written through: %v %v", info, err)
				}
			}
		}, false, "symbolic link"},
		{"a user's bbolt database", func(t *testing.T, path string) func(*testing.T) {
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("mine"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			})
			if err := errors.Join(err, db.Close()); err != nil {
				t.Fatal(err)
			}
			return func(t *testing.T) {
				db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
				if err != nil {
					t.Fatalf("the user's database after the resume: %v", err)
				}
				defer db.Close()
				_ = db.View(func(tx *bolt.Tx) error {
					if b := tx.Bucket([]byte("mine")); b == nil || string(b.Get([]byte("k"))) != "v" {
						t.Error("the user's database lost its bucket")
					}
					return nil
				})
			}
		}, false, "holds data"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t, lines...)
			r := tr.exec(t, faultBin, []string{"DOCKET_CRASH_AT=after_commit@3"}, "never")
			if !r.signaled {
				t.Fatalf("docket was not killed at the spawn's write-ahead commit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			files, _, err := journal.List(tr.home)
			if err != nil || len(files) != 1 {
				t.Fatalf("after the kill: journals %v (%v), want the parent's alone", files, err)
			}
			parent := files[0]
			var child string
			for _, s := range bodies[events.ExecStarted](t, readJournal(t, parent.Path), events.KindExecStarted) {
				if s.Agent != nil {
					child = s.Agent.ChildID
				}
			}
			if child == "" {
				t.Fatal("the parent's journal names no subagent")
			}
			path := filepath.Join(filepath.Dir(parent.Path), child+journal.Ext)
			check := tt.plant(t, path)

			r = tr.resume(t, parent.ID)
			if b, _ := os.ReadFile(filepath.Join(tr.ws, "runs.log")); (string(b) == "a\n") != tt.remade {
				t.Errorf("runs.log %q after the resume (exit %d), want the child's command run: %v\n%s%s", b, r.code, tt.remade, r.stdout, r.stderr)
			}
			if !tt.remade {
				// The terminal report wraps long lines: join them again.
				out := regexp.MustCompile(`\n\s*↪ `).ReplaceAllString(r.stdout+r.stderr, "")
				if !strings.Contains(out, path) || !strings.Contains(out, tt.refusal) {
					t.Errorf("the resume does not name %s and say %q:\n%s", path, tt.refusal, out)
				}
				if check != nil {
					check(t)
				}
				return
			}
			if r.code != 0 {
				t.Fatalf("resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			ends := bodies[events.TurnEnded](t, tr.records(t, child), events.KindTurnEnded)
			if len(ends) != 1 || ends[0].Status != events.TurnCompleted {
				t.Errorf("the child's turns %+v, want one, completed", ends)
			}
			rep := docket(t, nil, "replay", "--home", tr.home, parent.ID)
			if rep.code != 0 || strings.Count(rep.stdout, "replay ok") != 2 {
				t.Errorf("verify replay of the tree: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
			}
		})
	}
}
