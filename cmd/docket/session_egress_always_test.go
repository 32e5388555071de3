package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/sandbox/egress"
	"github.com/docket-engine/docket/states/permissions"
)

// alwaysDev is a network-on permission profile "dev" under prefix.
func alwaysDev(prefix string) string {
	return "[" + prefix + "permissions.dev.filesystem]\n\":root\" = \"read\"\n[" + prefix + "permissions.dev.network]\nenabled = true\n"
}

// failingJournal cannot write: the disk is gone.
type failingJournal struct{}

func (failingJournal) AppendDurable(time.Time, string, any) (events.Record, error) {
	return events.Record{}, errors.New("journal: disk gone")
}

func (failingJournal) Append(time.Time, string, any) (events.Record, error) {
	return events.Record{}, errors.New("journal: disk gone")
}

// The session's "always" writer widens only the profile the person
// answered about, in the user's file that defines it, and only once the
// answer is durable.
func TestAnAlwaysAnswerWidensOnlyTheProfileAskedAbout(t *testing.T) {
	cases := []struct {
		name    string
		config  string
		profile string
		project string
		// journalFails: the answer cannot be journaled.
		journalFails bool
		// wantWritten: the rule lands in config.toml (else nowhere).
		wantWritten bool
	}{
		{name: "a Codex profile's dev is widened, not the file's", config: alwaysDev("") + "[profiles.work]\nmodel = 'o3'\n" + alwaysDev("profiles.work."), profile: "work", wantWritten: true},
		{name: "a project's dev widens nothing of the user's", config: "", project: alwaysDev("")},
		{name: "a journal that fails leaves the config as it was", config: alwaysDev(""), journalFails: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			cfgPath := filepath.Join(home, config.FileName)
			before := "[projects.'" + ws + "']\ntrust_level = 'trusted'\n" + tc.config
			if err := os.WriteFile(cfgPath, []byte(before), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.project != "" {
				if err := os.MkdirAll(filepath.Join(ws, config.ProjectDirName), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, config.ProjectDirName, config.FileName), []byte(tc.project), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			name := "dev"
			cfg, err := config.Load(config.LoadOptions{Home: home, Profile: tc.profile, Cwd: ws, Flags: config.Flags{Permissions: &name}})
			if err != nil {
				t.Fatal(err)
			}
			eg := sessionEgress(cfg)
			if eg == nil {
				t.Fatal("no egress for a network-on profile")
			}
			var j egress.Journal = failingJournal{}
			if !tc.journalFails {
				jj, err := journal.Create(t.TempDir(), "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a60", time.Unix(1_763_000_000, 0))
				if err != nil {
					t.Fatal(err)
				}
				defer jj.Close()
				j = jj
			}
			asker := &egress.JournalingAsker{Person: alwaysPerson{}, Journal: j, Now: time.Now, Profile: "dev", Persist: eg.Persist}
			answer, _, err := asker.AskSourced(context.Background(), egress.Request{CallID: "c1", Host: "new.test", Port: 443})
			if tc.journalFails != (err != nil) {
				t.Fatalf("answer %s, err %v", answer, err)
			}
			data, err := os.ReadFile(cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			if written := string(data) != before; written != tc.wantWritten {
				t.Fatalf("config written = %v, want %v:\n%s", written, tc.wantWritten, data)
			}
			if tc.wantWritten {
				if answer != egress.AllowAlways || !strings.Contains(string(data), "[profiles.work.permissions.dev.network.domains]\n\"new.test\" = \"allow\"") {
					t.Fatalf("answer %s; config:\n%s", answer, data)
				}
				base, err := config.Load(config.LoadOptions{Home: home, Cwd: ws, Flags: config.Flags{Permissions: &name}})
				if err != nil {
					t.Fatal(err)
				}
				if base.PermissionProfile.Network.Decide("new.test").Action == permissions.Allow {
					t.Fatal("the user's own dev (no --profile) now allows new.test")
				}
			} else if !tc.journalFails && answer != egress.AllowSession {
				t.Fatalf("answer %s, want allow_session (nothing written)", answer)
			}
		})
	}
}

// alwaysPerson answers "always".
type alwaysPerson struct{}

func (alwaysPerson) Ask(context.Context, egress.Request) (egress.Answer, error) {
	return egress.AllowAlways, nil
}
