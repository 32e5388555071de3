package journal

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// makeSessions creates journals for ids (UUIDv7-like: they sort by start).
func makeSessions(t *testing.T, home string, ids ...string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for i, id := range ids {
		j, err := Create(home, id, started().Add(time.Duration(i)*36*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		appendSeq(t, j)
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		paths[id] = j.Path()
	}
	return paths
}

func TestListNewestFirst(t *testing.T) {
	home := t.TempDir()
	if got, _, err := List(home); err != nil || len(got) != 0 {
		t.Fatalf("List of an empty home: %v, %v", got, err)
	}
	ids := []string{"0199a000-0000-7000-8000-000000000001", "0199a000-0000-7000-8000-000000000003", "0199a000-0000-7000-8000-000000000002"}
	paths := makeSessions(t, home, ids...)
	// Noise that is not a session.
	if err := os.WriteFile(filepath.Join(home, "sessions", "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "sessions", "2026", "dir.docket"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, _, err := List(home)
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs []string
	for _, s := range got {
		gotIDs = append(gotIDs, s.ID)
		if s.Path != paths[s.ID] || s.ModTime.IsZero() {
			t.Errorf("session %s: path %s, mod time %v", s.ID, s.Path, s.ModTime)
		}
	}
	want := []string{ids[1], ids[2], ids[0]}
	if !reflect.DeepEqual(gotIDs, want) {
		t.Fatalf("List = %v, want %v (newest first, no .pid files, no directories)", gotIDs, want)
	}
}

func TestFind(t *testing.T) {
	home := t.TempDir()
	ids := []string{"0199a111-aaaa-7000-8000-000000000001", "0199a111-aaab-7000-8000-000000000002", "0199a222-0000-7000-8000-000000000003"}
	paths := makeSessions(t, home, ids...)
	tests := []struct {
		name    string
		ref     string
		want    string // id found
		errType any    // pointer to the error type expected
		errText []string
	}{
		{name: "last", ref: "last", want: ids[2]},
		{name: "--last", ref: "--last", want: ids[2]},
		{name: "full id", ref: ids[0], want: ids[0]},
		{name: "unique prefix", ref: "0199a2", want: ids[2]},
		{name: "prefix unique at its last char", ref: "0199a111-aaab", want: ids[1]},
		{name: "path", ref: paths[ids[1]], want: ids[1]},
		{name: "ambiguous prefix lists both", ref: "0199a111", errType: new(*AmbiguousError),
			errText: []string{`session prefix "0199a111" matches 2 sessions`, ids[0], ids[1]}},
		{name: "not found", ref: "0199b", errType: new(*NotFoundError),
			errText: []string{`no session matches "0199b" under ` + filepath.Join(home, "sessions")}},
		{name: "missing path", ref: filepath.Join(home, "nope.docket"), errType: new(*os.PathError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(home, tt.ref)
			if tt.errType != nil {
				if err == nil || !errors.As(err, tt.errType) {
					t.Fatalf("Find(%q) = %+v, %v; want a %T", tt.ref, got, err, tt.errType)
				}
				for _, s := range tt.errText {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				return
			}
			if err != nil || got.ID != tt.want || got.Path != paths[tt.want] {
				t.Fatalf("Find(%q) = %+v, %v; want %s at %s", tt.ref, got, err, tt.want, paths[tt.want])
			}
		})
	}
	var amb *AmbiguousError
	if _, err := Find(home, "0199a111"); errors.As(err, &amb) && len(amb.Matches) != 2 {
		t.Errorf("ambiguous matches: %+v", amb.Matches)
	}
	if _, err := Find(t.TempDir(), "last"); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("last in an empty home: %v, want *NotFoundError", err)
	}
}
