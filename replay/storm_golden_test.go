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

// A journal the e2e fault storm (cmd/docket/e2e/storm_test.go) produced
// and an earlier replay rejected, though resume had accepted it: the
// process was killed while call b2 (decision committed, run not) and b3
// (asked) were parallel, and b2's stop must not stop b3's replay. Only the
// killed process's part is replayed: the resume that followed was made by
// an engine that asked b2 again, where today's acts on the journaled answer
// (engine/saved_answer.go), and verify replay rightly says today's engine
// would not repeat that question (checked below, so the golden file cannot
// silently start meaning something else). Fresh storms, resumed by today's
// engine, verify whole in the e2e storm. The counts are read off the
// journal by hand, not from the replay's own output.
func TestStormJournalsVerifyReplay(t *testing.T) {
	t.Parallel()
	const killedRecords = 47 // records before the first session_resumed
	recs := readAll(t, "../testdata/storm/parallel-crash.docket")
	if len(recs) != 137 || count(recs, events.KindSessionResumed) != 1 {
		t.Fatalf("the journal has %d records, %d resumes; the test expects 137 and 1", len(recs), count(recs, events.KindSessionResumed))
	}
	home := t.TempDir()
	j, err := journal.Create(home, "killed", nowish())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if r.Kind == events.KindSessionResumed {
			break
		}
		body, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Append(atOf(r), r.CallID, body); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if n != killedRecords {
		t.Fatalf("the killed process wrote %d records; the test expects %d", n, killedRecords)
	}
	res, err := replay.VerifyFile(context.Background(), j.Path(), replay.Options{})
	if err != nil {
		t.Fatalf("b2's stop must not stop b3's replay: %v", err)
	}
	if res.Segments != 1 || res.Compared != killedRecords-1 {
		t.Fatalf("compared %d records in %d segments; want %d in 1", res.Compared, res.Segments, killedRecords-1)
	}

	_, err = replay.VerifyFile(context.Background(), "../testdata/storm/parallel-crash.docket", replay.Options{})
	var d *replay.Divergence
	if !errors.As(err, &d) || d.CallID != "b2" || d.Kind != events.KindApprovalRequested {
		t.Fatalf("the whole journal: want a divergence at b2's repeated question, got %v", err)
	}
}

// TestAReplayThatCannotFinishASegmentStopsWithADivergence: a record the
// engine never writes (here an outcome for a call no response made), in a
// segment where a call waits for the killed process's end, must end the
// replay with that record as the divergence, not hang it.
func TestAReplayThatCannotFinishASegmentStopsWithADivergence(t *testing.T) {
	t.Parallel()
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
	// The stall bound is all a loaded machine gets between two records the
	// engine does produce: at 200ms a slow legitimate record could be
	// named the divergence instead of zz.
	_, err = replay.VerifyFile(ctx, j.Path(), replay.Options{Stall: 2 * time.Second})
	var d *replay.Divergence
	if !errors.As(err, &d) || d.Seq != extra || d.CallID != "zz" {
		t.Fatalf("want a divergence at seq %d (call zz), got %v", extra, err)
	}
}
