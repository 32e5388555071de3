package journal_test

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// A long-lived process's records survive a real bbolt file: written,
// closed, reopened, each decodes to what was written, and encodes again
// to the same bytes (no Go maps in their bodies).
func TestProcessRecordsRoundTripThroughABoltFile(t *testing.T) {
	home := t.TempDir()
	j, err := journal.Create(home, "sess-proc", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	plan := events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/w"}}
	bodies := []any{
		&events.ExecStarted{CallID: "c1", Attempt: 1, Tool: "exec_command", Argv: []string{"bash", "-lc", "python3 -i"}, Cwd: "/w", Sandbox: plan,
			Process: &events.ProcessCall{ID: 1000, Tty: true, YieldMs: 10_000, MaxOutputTokens: 10_000, Evicts: []int{984, 985}}},
		&events.ExecOutcome{CallID: "c1", Attempt: 1, Output: ">>> ", DurationNs: 1e9, Layers: []string{"landlock"},
			Process: &events.ProcessPoll{ID: 1000, Running: true, ChunkID: "0a1b2c", OriginalTokens: 1}},
		&events.ExecStarted{CallID: "c2", Attempt: 1, Tool: "write_stdin", Cwd: "/w", Sandbox: plan, Input: "print(1)\n",
			Process: &events.ProcessCall{ID: 1000, Tty: true, YieldMs: 250, MaxOutputTokens: 10_000, Chars: "print(1)\n", StartedBy: "c1"}},
		&events.ExecOutcome{CallID: "c2", Attempt: 1, Output: "1\r\n", ExitCode: 0,
			Process: &events.ProcessPoll{ID: 1000, ChunkID: "ffee00", OriginalTokens: 1}},
		&events.ProcessEnded{ID: 984, CallID: "c0", How: events.ProcessEvicted, Reason: "the session keeps at most 16 processes running"},
	}
	var written [][]byte
	for _, b := range bodies {
		r, err := j.Append(time.Unix(1700000000, 0), "c1", b)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, raw)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	path := j.Path()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j2, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	recs, err := j2.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(bodies) {
		t.Fatalf("%d records read, %d written", len(recs), len(bodies))
	}
	for i, r := range recs {
		got, err := r.Decode()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, bodies[i]) {
			t.Errorf("record %d: read %+v, wrote %+v", i, got, bodies[i])
		}
		again, err := r.Marshal()
		if err != nil || !bytes.Equal(again, written[i]) {
			t.Errorf("record %d does not encode to the bytes written (%v)", i, err)
		}
	}
}
