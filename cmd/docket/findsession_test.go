package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// TestLastIsTheNewestSessionAUserStarted: "last" skips a subagent's
// journal and one a crash left without a record (issue 27: a child's
// journal killed inside its creation sorts newest and is nobody's session
// to go on with), and takes the newest the user started.
func TestLastIsTheNewestSessionAUserStarted(t *testing.T) {
	home := t.TempDir()
	at := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	start := func(id string, parent *events.ParentLink) string {
		j, err := journal.Create(home, id, at)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if _, err := j.AppendDurable(at, "", events.SessionStarted{SessionID: id, Cwd: "/w", Parent: parent}); err != nil {
			t.Fatal(err)
		}
		return j.Path()
	}
	older := start("0199a1b2-0000-7000-8000-000000000001", nil)
	user := start("0199a1b2-0000-7000-8000-000000000002", nil)
	_ = start("0199a1b2-0000-7000-8000-000000000003", &events.ParentLink{SessionID: "0199a1b2-0000-7000-8000-000000000002", CallID: "c1", Name: "a", Depth: 1})
	// The newest of all: a file a crash inside journal.Create left empty.
	unmade := filepath.Join(filepath.Dir(user), "0199a1b2-0000-7000-8000-000000000004"+journal.Ext)
	if err := os.WriteFile(unmade, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := findSession(home, "last")
	if err != nil || got.Path != user {
		t.Fatalf(`findSession("last") = %v, %v; want %s (not %s, nor the older %s)`, got.Path, err, user, unmade, older)
	}
}
