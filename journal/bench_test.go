package journal

import (
	"fmt"
	"os"
	"testing"

	"github.com/docket-engine/docket/events"
)

// typicalTransition is the most frequent record a session writes.
func typicalTransition() events.Transition {
	return events.Transition{
		CallID: "call_3kX9wQ2mZ8pL", From: "wantsApproval", Event: "run_sandboxed", To: "sandboxed",
		Cause: "rule_allow", Reason: "allowed by prefix rule [\"go\", \"test\"]",
	}
}

func benchJournal(b *testing.B) *Journal {
	b.Helper()
	j, err := Create(b.TempDir(), testID, started())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	return j
}

// BenchmarkDurableAppend makes every record durable on its own: one bbolt
// Update, so one fsync, per record.
func BenchmarkDurableAppend(b *testing.B) {
	j := benchJournal(b)
	tr := typicalTransition()
	n := 0
	for b.Loop() {
		if _, err := j.Append(atOf(uint64(n)), tr.CallID, tr); err != nil {
			b.Fatal(err)
		}
		if err := j.Commit(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkBufferedAppend appends records and commits every 1000.
func BenchmarkBufferedAppend(b *testing.B) {
	j := benchJournal(b)
	tr := typicalTransition()
	n := 0
	for b.Loop() {
		if _, err := j.Append(atOf(uint64(n)), tr.CallID, tr); err != nil {
			b.Fatal(err)
		}
		n++
		if n%1000 == 0 {
			if err := j.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkTransitionRecordBytes measures the encoded size of a typical
// transition record (envelope included) and the time to encode it.
func BenchmarkTransitionRecordBytes(b *testing.B) {
	var size, body int
	tr := typicalTransition()
	for b.Loop() {
		r, err := events.NewRecord(123456, started().UnixNano(), tr.CallID, tr)
		if err != nil {
			b.Fatal(err)
		}
		w, err := r.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		size, body = len(w), len(r.Body)
	}
	b.ReportMetric(float64(size), "bytes/record")
	b.ReportMetric(float64(body), "body-bytes/record")
}

// BenchmarkFileBytesPerTransition writes 10,000 transitions, committed five
// at a time as a session would, and reports the journal file's size per
// record (the call index and bbolt's free pages included).
func BenchmarkFileBytesPerTransition(b *testing.B) {
	const records = 10_000
	var perRecord float64
	for b.Loop() {
		j, err := Create(b.TempDir(), testID, started())
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < records; i++ {
			tr := typicalTransition()
			tr.CallID = fmt.Sprintf("call_%012d", i/5)
			if _, err := j.Append(atOf(uint64(i)), tr.CallID, tr); err != nil {
				b.Fatal(err)
			}
			if i%5 == 4 {
				if err := j.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := j.Close(); err != nil {
			b.Fatal(err)
		}
		info, err := os.Stat(j.Path())
		if err != nil {
			b.Fatal(err)
		}
		perRecord = float64(info.Size()) / records
	}
	b.ReportMetric(perRecord, "file-bytes/record")
}

// BenchmarkSimulatedToolCall journals what one executed shell call produces,
// committing where the engine does (engine/commit.go): only the write-ahead
// commit before the process starts. The call's outcome records, the next
// model request and its response ride on the next call's write-ahead
// commit (a model request commits only a person's pending words, and a
// serial session has none between calls). With parallel calls, one
// write-ahead commit covers the whole batch.
func BenchmarkSimulatedToolCall(b *testing.B) {
	for _, parallel := range []int{1, 4} {
		b.Run(fmt.Sprintf("parallel=%d", parallel), func(b *testing.B) {
			j := benchJournal(b)
			start := j.Commits()
			calls, records := 0, 0
			add := func(call string, body any) {
				if _, err := j.Append(atOf(uint64(records)), call, body); err != nil {
					b.Fatal(err)
				}
				records++
			}
			writeAheads := 0
			commit := func() {
				if err := j.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				ids := make([]string, parallel)
				for i := range ids {
					ids[i] = fmt.Sprintf("call_%d", calls+i)
					add(ids[i], events.Transition{CallID: ids[i], From: "wantsApproval", Event: "run_sandboxed", To: "sandboxed", Cause: "rule_allow", Reason: "allowed by prefix rule"})
					add(ids[i], events.ExecStarted{CallID: ids[i], Attempt: 1, Tool: "shell", Argv: []string{"bash", "-lc", "go test ./..."}, Cwd: "/work",
						Sandbox: events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/work"}, ReadOnlySubpaths: []string{"/work/.git"}}})
				}
				commit() // write-ahead: durable before any process starts
				writeAheads++
				for _, id := range ids {
					add(id, events.ExecOutcome{CallID: id, Attempt: 1, ExitCode: 0, DurationNs: 1_234_567_890, Output: "ok  \tgithub.com/x/y\t0.012s\n", Layers: []string{"landlock", "seccomp"}})
					add(id, events.Transition{CallID: id, From: "sandboxed", Event: "finish", To: "done", Cause: "exit_code", Reason: "the command exited 0"})
					add(id, events.ToolOutput{CallID: id, Type: events.ItemFunctionCallOutput, Output: "Exit code: 0\nok  \tgithub.com/x/y\t0.012s\n", Success: true})
				}
				add("", events.ModelRequest{TurnID: "turn-1", Request: calls, Digest: "sha256:0123456789abcdef", ItemCount: 12 + calls})
				add("", events.ModelResponse{TurnID: "turn-1", Request: calls, ResponseID: "resp_1", Usage: events.Usage{InputTokens: 1200, OutputTokens: 40}})
				calls += parallel
			}
			b.ReportMetric(float64(j.Commits()-start)/float64(calls), "commits/call")
			b.ReportMetric(float64(writeAheads)/float64(calls), "write-ahead-commits/call")
			b.ReportMetric(float64(records)/float64(calls), "records/call")
			b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
