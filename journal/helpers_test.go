package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
)

// started is the fixed start time of test sessions, so paths are stable.
func started() time.Time { return time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC) }

// atOf is the clock reading recorded for seq.
func atOf(seq uint64) time.Time { return started().Add(time.Duration(seq) * time.Millisecond) }

// bodyFor returns a deterministic record body for seq, cycling through kinds
// and sizes: every 41st record is larger than a page, so journals contain
// overflow pages too.
func bodyFor(id string, seq uint64) (callID string, body any) {
	call := fmt.Sprintf("call_%d", seq/5)
	switch {
	case seq == 1:
		return "", events.SessionStarted{Version: events.FormatVersion, SessionID: id, Cwd: "/work", StartedAt: started().UnixNano()}
	case seq%41 == 0:
		return call, events.ExecOutcome{CallID: call, ExitCode: 1, Stdout: strings.Repeat(fmt.Sprintf("line %d of big output\n", seq), 400)}
	}
	switch seq % 5 {
	case 0:
		return call, events.Transition{CallID: call, From: "wantsApproval", Event: "run_sandboxed", To: "sandboxed", Cause: "rule_allow", Reason: "an allow rule matched"}
	case 1:
		return call, events.ExecStarted{CallID: call, Tool: "shell", Argv: []string{"bash", "-lc", fmt.Sprintf("echo %d", seq)}, Cwd: "/work", Sandbox: events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/work"}}}
	case 2:
		return call, events.ExecOutcome{CallID: call, ExitCode: 0, DurationNs: int64(seq) * 1000, Stdout: fmt.Sprintf("%d\n", seq)}
	case 3:
		return call, events.ToolOutput{CallID: call, Type: events.ItemFunctionCallOutput, Output: fmt.Sprintf("Exit code: 0\n%d", seq), Success: true}
	}
	return "", events.ModelRequest{TurnID: "turn-1", Request: int(seq), Digest: fmt.Sprintf("sha256:%064d", seq), ItemCount: int(seq)}
}

// wantRecord is the record a writer using bodyFor appends as seq.
func wantRecord(t testing.TB, id string, seq uint64) events.Record {
	t.Helper()
	call, body := bodyFor(id, seq)
	r, err := events.NewRecord(seq, atOf(seq).UnixNano(), call, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// appendSeq appends the bodyFor record for the journal's next seq.
func appendSeq(t testing.TB, j *Journal) events.Record {
	t.Helper()
	seq := j.NextSeq()
	call, body := bodyFor(j.SessionID(), seq)
	r, err := j.Append(atOf(seq), call, body)
	if err != nil {
		t.Fatalf("append seq %d: %v", seq, err)
	}
	return r
}

// fixture is a closed journal file built by buildJournal.
type fixture struct {
	id      string
	path    string
	records []events.Record
	wires   [][]byte // records[i] marshalled
	commits []uint64 // the last seq of each commit
	bytes   []byte   // the file's contents
}

// buildJournal writes n records in commits of 1..7 records and closes it.
func buildJournal(t testing.TB, home, id string, n int) fixture {
	t.Helper()
	j, err := Create(home, id, started())
	if err != nil {
		t.Fatal(err)
	}
	fx := fixture{id: id, path: j.Path()}
	for len(fx.records) < n {
		batch := 1 + len(fx.commits)%7
		for i := 0; i < batch && len(fx.records) < n; i++ {
			r := appendSeq(t, j)
			w, err := r.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			fx.records = append(fx.records, r)
			fx.wires = append(fx.wires, w)
		}
		if err := j.Commit(); err != nil {
			t.Fatal(err)
		}
		fx.commits = append(fx.commits, uint64(len(fx.records)))
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if fx.bytes, err = os.ReadFile(fx.path); err != nil {
		t.Fatal(err)
	}
	return fx
}

// scanAll runs Scan and returns what it yielded and its error.
func scanAll(path string) ([]events.Record, error) {
	var got []events.Record
	err := Scan(path, 1, func(r events.Record) error {
		got = append(got, r)
		return nil
	})
	return got, err
}

// checkPrefix fails unless got is records 1..len(got) of fx, byte for byte.
func checkPrefix(t testing.TB, what string, fx fixture, got []events.Record) {
	t.Helper()
	if len(got) > len(fx.records) {
		t.Fatalf("%s: yielded %d records, the journal only had %d", what, len(got), len(fx.records))
	}
	for i, r := range got {
		w, err := r.Marshal()
		if err != nil || r.Seq != uint64(i+1) || !bytes.Equal(w, fx.wires[i]) {
			t.Fatalf("%s: record %d yielded is seq %d and differs from the original", what, i+1, r.Seq)
		}
	}
}

// checkScanError fails unless err is one of the errors a damaged file may
// give, consistent with the k records yielded, in a sentence naming path.
func checkScanError(t testing.TB, what, path string, k int, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "runtime error") {
		t.Fatalf("%s: a runtime error instead of what is damaged: %v", what, err)
	}
	var de *DamagedError
	var nj *NotJournalError
	switch {
	case err == nil:
		// Undamaged as far as bbolt's committed view goes.
	case errors.As(err, &de):
		if de.Path != path || de.LastGoodSeq != uint64(k) {
			t.Fatalf("%s: DamagedError{Path: %s, LastGoodSeq: %d}, want path %s and seq %d", what, de.Path, de.LastGoodSeq, path, k)
		}
		if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, fmt.Sprintf("after seq %d", k)) {
			t.Fatalf("%s: message %q does not name the file and the last good seq", what, msg)
		}
	case errors.As(err, &nj):
		if k != 0 {
			t.Fatalf("%s: NotJournalError after %d good records: %v", what, k, err)
		}
		if nj.Path != path || !strings.Contains(err.Error(), path+" is not a docket journal: ") {
			t.Fatalf("%s: message %q does not name the file", what, err)
		}
	default:
		t.Fatalf("%s: untyped error %T: %v", what, err, err)
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
