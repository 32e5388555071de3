package replay_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
)

func readAll(t *testing.T, path string) []events.Record {
	t.Helper()
	var recs []events.Record
	if err := journal.Scan(path, 1, func(r events.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

func count(recs []events.Record, k events.RecordKind) int {
	n := 0
	for _, r := range recs {
		if r.Kind == k {
			n++
		}
	}
	return n
}

// A session recorded now, for real, replays with every decision matching.
func TestFreshlyRecordedSessionsVerifyReplay(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			path := record(t, sc)
			res, err := replay.VerifyFile(context.Background(), path, replay.Options{})
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			recs := readAll(t, path)
			resumed := count(recs, events.KindSessionResumed)
			if res.Compared+1+resumed != len(recs) || res.Segments != 1+resumed {
				t.Fatalf("compared %d of %d records in %d segments (%d resumes)", res.Compared, len(recs), res.Segments, resumed)
			}
		})
	}
}

// The committed journals keep replaying as the code changes: a change in
// behaviour shows up here as a divergence.
func TestGoldenJournalsVerifyReplay(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../testdata/journals/*.docket")
	if len(files) < len(scenarios()) {
		t.Fatalf("found %d golden journals, want %d: record them with go test ./replay -run Fresh -update", len(files), len(scenarios()))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := replay.VerifyFile(context.Background(), f, replay.Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// rewrite copies a golden journal, changing one record's body.
func rewrite(t *testing.T, src string, change func(r events.Record, body any) any) string {
	t.Helper()
	recs := readAll(t, src)
	home := t.TempDir()
	first, _ := recs[0].Decode()
	ss := first.(*events.SessionStarted)
	j, err := journal.Create(home, ss.SessionID+"-edited", nowish())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := j.Close(); err != nil {
			t.Error(err)
		}
	}()
	for _, r := range recs {
		body, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if nb := change(r, body); nb != nil {
			body = nb
		}
		if _, err := j.Append(atOf(r), r.CallID, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	return j.Path()
}

func TestAnEditedDecisionDivergesAtTheRecordItChanges(t *testing.T) {
	t.Parallel()
	var seq uint64
	path := rewrite(t, "../testdata/journals/approval.docket", func(r events.Record, body any) any {
		if d, ok := body.(*events.Decision); ok {
			d.Decision = "denied"
			seq = r.Seq
			return d
		}
		return nil
	})
	_, err := replay.VerifyFile(context.Background(), path, replay.Options{})
	var d *replay.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("want a divergence, got %v", err)
	}
	// The decision is an input; the first decision record it changes is the
	// transition that follows it.
	if d.Seq != seq+1 || d.Kind != events.KindTransition || d.CallID != "c1" {
		t.Fatalf("diverged at seq %d (%s, %s), want seq %d transition of c1\n%v", d.Seq, d.Kind, d.CallID, seq+1, err)
	}
	if !strings.Contains(err.Error(), "user_denied") || !strings.Contains(err.Error(), "user_approved") {
		t.Fatalf("the divergence does not show both sides:\n%v", err)
	}
}

func TestChangedRulesDivergeAtTheFirstDecisionTheyChange(t *testing.T) {
	t.Parallel()
	path := "../testdata/journals/apply-patch.docket"
	_, err := replay.VerifyFile(context.Background(), path, replay.Options{Rules: []events.RuleSource{{
		Path: "test.rules", Text: `prefix_rule(pattern=["bash"], decision="forbidden")` + "\n"}}})
	if err != nil {
		t.Fatalf("a rule for commands the session never ran must not diverge: %v", err)
	}
	path = "../testdata/journals/parallel.docket"
	recs := readAll(t, path)
	var want uint64
	for _, r := range recs {
		if r.Kind == events.KindTransition && r.CallID == "b" {
			want = r.Seq
			break
		}
	}
	_, err = replay.VerifyFile(context.Background(), path, replay.Options{Rules: []events.RuleSource{{
		Path: "test.rules", Text: `prefix_rule(pattern=["bash", "-lc", "echo b"], decision="forbidden")` + "\n"}}})
	var d *replay.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("want a divergence, got %v", err)
	}
	if d.Seq != want || d.CallID != "b" {
		t.Fatalf("diverged at seq %d call %s, want seq %d call b\n%v", d.Seq, d.CallID, want, err)
	}
}

func TestReplaySpawnsNothing(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran.txt")
	path := record(t, scenario{name: "marker", approval: "on-request", mode: "danger-full-access",
		script: []string{line(shell("c1", "echo ran >> "+marker)), finalMsg}})
	if b, err := os.ReadFile(marker); err != nil || string(b) != "ran\n" {
		t.Fatalf("the recorded session did not run its command: %q %v", b, err)
	}
	os.Remove(marker)
	if _, err := replay.VerifyFile(context.Background(), path, replay.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("verify replay ran the recorded command again")
	}
}
