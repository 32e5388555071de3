package replay_test

import (
	"context"
	"testing"

	"github.com/docket-engine/docket/events"
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
