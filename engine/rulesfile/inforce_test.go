package rulesfile_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/rulesfile"
)

func writeRules(t *testing.T, dir, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.rules"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInForce(t *testing.T) {
	rule := `prefix_rule(pattern=["ls"], decision="allow")` + "\n"
	home, project := t.TempDir(), t.TempDir()
	writeRules(t, filepath.Join(home, "rules"), rule)
	writeRules(t, filepath.Join(project, ".docket", "rules"), rule)
	for _, tc := range []struct {
		name          string
		home, project string
		wantProject   []bool
	}{
		{"no rules files is the empty set, not nil (nil means the recorded rules to a replay)", "", "", []bool{}},
		{"a user file is not a project file", home, "", []bool{false}},
		{"a project file is marked", "", project, []bool{true}},
		{"user files load before project files", home, project, []bool{false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs, err := rulesfile.InForce(context.Background(), tc.home, tc.project)
			if err != nil {
				t.Fatal(err)
			}
			if srcs == nil || len(srcs) != len(tc.wantProject) {
				t.Fatalf("got %d sources (nil %v), want %d", len(srcs), srcs == nil, len(tc.wantProject))
			}
			for i, s := range srcs {
				if s.Project != tc.wantProject[i] || s.Text != rule {
					t.Fatalf("source %d: %+v, want project %v", i, s, tc.wantProject[i])
				}
			}
		})
	}
}

func TestInForceFailsClosedNamingTheFile(t *testing.T) {
	home := t.TempDir()
	writeRules(t, filepath.Join(home, "rules"), "prefix_rule(\n")
	if _, err := rulesfile.InForce(context.Background(), home, ""); err == nil || !strings.Contains(err.Error(), filepath.Join(home, "rules", "a.rules")) {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}
