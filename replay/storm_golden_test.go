package replay_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
)

// Journals the e2e fault storm (cmd/docket/e2e/storm_test.go) produced and
// an earlier replay rejected, though resume had accepted them. Each is
// checked against facts read off the journal by hand, not against the
// replay's own output.
func TestStormJournalsVerifyReplay(t *testing.T) {
	for _, tc := range []struct {
		file string
		why  string
		// segments is 1 + the session_resumed records; every record but
		// session_started and those markers is compared.
		records, segments int
	}{
		{file: "parallel-crash.docket", records: 137, segments: 2,
			why: "killed while call b2 (decision committed, run not) and b3 (asked) were parallel: b2's stop must not stop b3's replay"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := "../testdata/storm/" + tc.file
			recs := readAll(t, path)
			if len(recs) != tc.records || count(recs, events.KindSessionResumed) != tc.segments-1 {
				t.Fatalf("the journal has %d records, %d resumes; the test expects %d and %d", len(recs), count(recs, events.KindSessionResumed), tc.records, tc.segments-1)
			}
			res, err := replay.VerifyFile(context.Background(), path, replay.Options{})
			if err != nil {
				t.Fatalf("%s: %v", tc.why, err)
			}
			if res.Segments != tc.segments || res.Compared != tc.records-tc.segments {
				t.Fatalf("compared %d records in %d segments; want %d in %d", res.Compared, res.Segments, tc.records-tc.segments, tc.segments)
			}
		})
	}
}

// TestAReplayThatCannotFinishASegmentStopsWithADivergence: a record the
// engine never writes (here an outcome for a call no response made), in a
// segment where a call waits for the killed process's end, must end the
// replay with that record as the divergence, not hang it.
func TestAReplayThatCannotFinishASegmentStopsWithADivergence(t *testing.T) {
	recs := readAll(t, "../testdata/storm/parallel-crash.docket")
	home := t.TempDir()
	j, err := journal.Create(home, "stalled", nowish())
	if err != nil {
		t.Fatal(err)
	}
	var extra uint64
	for _, r := range recs {
		body, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind == events.KindSessionResumed && extra == 0 {
			rec, err := j.Append(atOf(r), "zz", events.ExecOutcome{CallID: "zz", Attempt: 1, Output: "never"})
			if err != nil {
				t.Fatal(err)
			}
			extra = rec.Seq
		}
		if _, err := j.Append(atOf(r), r.CallID, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = replay.VerifyFile(ctx, j.Path(), replay.Options{Stall: 200 * time.Millisecond})
	var d *replay.Divergence
	if !errors.As(err, &d) || d.Seq != extra || d.CallID != "zz" {
		t.Fatalf("want a divergence at seq %d (call zz), got %v", extra, err)
	}
}
