package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/states"
)

func scripted(t *testing.T, text string) *script.Model {
	t.Helper()
	m, err := script.Parse("test.jsonl", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOpenRefusesWhatItCannotUse: each bad option fails Open with an error
// naming it, before any journal is written.
func TestOpenRefusesWhatItCannotUse(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	m := scripted(t, helloScript)
	tests := []struct {
		name   string
		opts   session.Options
		want   string
		option bool // an *OptionError
	}{
		{name: "no model", opts: session.Options{Workspace: dir, Home: home}, want: "Options.Model is required"},
		{name: "no workspace", opts: session.Options{Model: m, Home: home}, want: "no workspace"},
		{name: "missing workspace", opts: session.Options{Workspace: filepath.Join(dir, "nope"), Model: m, Home: home}, want: "does not exist"},
		{name: "file as workspace", opts: session.Options{Workspace: file, Model: m, Home: home}, want: "is not a directory"},
		{name: "bad sandbox mode", opts: session.Options{Workspace: dir, Model: m, Home: home, Policy: events.SessionConfig{SandboxMode: "sometimes"}}, want: "sometimes"},
		{name: "bad MCP server", opts: session.Options{Workspace: dir, Model: m, Home: home,
			MCPServers: map[string]mcp.ServerConfig{"broken": {}}}, want: "broken", option: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := session.Open(context.Background(), tc.opts)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open succeeded, want an error saying %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			var oe *session.OptionError
			if errors.As(err, &oe) != tc.option {
				t.Errorf("error %v: *OptionError = %v, want %v", err, !tc.option, tc.option)
			}
			if files, _, _ := journal.List(home); len(files) != 0 {
				t.Errorf("a failed Open left %d journals", len(files))
			}
		})
	}
}

// TestOpenAppliesTheRulesInForceUnderHome: with Rules left nil, a rules
// file under Home/rules decides; the forbidden command never runs.
func TestOpenAppliesTheRulesInForceUnderHome(t *testing.T) {
	dir := t.TempDir()
	work, home := filepath.Join(dir, "work"), filepath.Join(dir, "home")
	for _, d := range []string{work, filepath.Join(home, "rules")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rule := `prefix_rule(pattern=["touch"], decision="forbidden")` + "\n"
	if err := os.WriteFile(filepath.Join(home, "rules", "default.rules"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(context.Background(), session.Options{Workspace: work, Home: home, Model: scripted(t, touchScript),
		Approver: allowList{"touch": true}, Policy: events.SessionConfig{ApprovalPolicy: "untrusted"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	if _, err := s.Turn(context.Background(), "create approved.txt"); err != nil {
		t.Fatal(err)
	}
	if len(s.Config().Rules) != 1 {
		t.Errorf("the session recorded %d rule sources, want Home's one", len(s.Config().Rules))
	}
	if st, _ := s.Engine().CallState("call_touch"); st != states.Done {
		t.Errorf("the forbidden call ended %s, want done (denied)", st)
	}
	if _, err := os.Stat(filepath.Join(work, "approved.txt")); err == nil {
		t.Error("the forbidden touch ran")
	}
}

// TestJournalHomeHoldsTheJournal: JournalHome puts the journal elsewhere
// than Home (the CLI's --ephemeral), and the path survives Close.
func TestJournalHomeHoldsTheJournal(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	s, err := session.Open(context.Background(), session.Options{Workspace: dir, Home: filepath.Join(dir, "home"),
		JournalHome: elsewhere, Model: scripted(t, helloScript), Rules: []events.RuleSource{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.JournalPath(), elsewhere+string(filepath.Separator)) {
		t.Errorf("journal %s is not under JournalHome %s", s.JournalPath(), elsewhere)
	}
	if _, err := os.Stat(s.JournalPath()); err != nil {
		t.Errorf("the journal is not there after Close: %v", err)
	}
	if _, err := s.Records(); err == nil {
		t.Error("Records of a closed session succeeded")
	}
}

// TestResumeOfAnEmptyJournalSaysNothingRan: a journal whose session never
// committed its start is an *EmptyJournalError, and stays as it was.
func TestResumeOfAnEmptyJournalSaysNothingRan(t *testing.T) {
	home := t.TempDir()
	j, err := journal.Create(home, "01900000-0000-7000-8000-000000000000", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	path := j.Path()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = session.Resume(context.Background(), path, session.Options{Home: home, Model: scripted(t, helloScript)})
	var ee *session.EmptyJournalError
	if !errors.As(err, &ee) {
		t.Fatalf("Resume: %v, want an *EmptyJournalError", err)
	}
	// Nothing was written: resuming again fails the same way.
	if _, err := session.Resume(context.Background(), path, session.Options{Home: home, Model: scripted(t, helloScript)}); !errors.As(err, &ee) {
		t.Fatalf("second Resume: %v, want an *EmptyJournalError again", err)
	}
}
