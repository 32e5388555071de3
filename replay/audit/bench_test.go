package audit

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/states"
)

// genJournal writes a journal of n calls, ten to a model response, each a
// sandboxed run with its outcome (every tenth one a denial retried without
// the sandbox), committing every 10,000 records. It returns the path and
// the number of records.
func genJournal(tb testing.TB, n int) (string, uint64) {
	tb.Helper()
	j, err := journal.Create(tb.TempDir(), fmt.Sprintf("bench-%d", n), t0)
	if err != nil {
		tb.Fatal(err)
	}
	now := t0
	add := func(id string, body any) {
		now = now.Add(time.Millisecond)
		r, err := j.Append(now, id, body)
		if err != nil {
			tb.Fatal(err)
		}
		if r.Seq%10_000 == 0 {
			if err := j.Commit(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	tr := func(id string, from states.State, ev states.Event, cause states.Cause) {
		to, _ := states.Next(from, ev)
		add(id, events.Transition{CallID: id, From: string(from), Event: string(ev), To: string(to), Cause: string(cause), Reason: "bench"})
	}
	add("", events.SessionStarted{Version: events.FormatVersion, SessionID: "bench", Cwd: fixtureCwd,
		Config: events.SessionConfig{ApprovalPolicy: "on-failure", SandboxMode: "workspace-write"}, Plan: wsPlan})
	argv := []string{"bash", "-lc", "go test ./... && echo ok"}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call-%07d", i)
		if i%10 == 0 {
			items := make([]events.Item, 0, 10)
			for k := i; k < i+10 && k < n; k++ {
				items = append(items, shellItem(fmt.Sprintf("call-%07d", k), map[string]any{"command": argv}))
			}
			add("", events.ModelResponse{TurnID: "turn-1", Request: i/10 + 1, Items: items})
		}
		tr(id, states.WantsApproval, states.RunSandboxed, states.CausePolicySkip)
		add(id, events.ExecStarted{CallID: id, Attempt: 1, Tool: "shell", Argv: argv, Cwd: fixtureCwd, Sandbox: wsPlan})
		if i%10 == 7 {
			add(id, events.ExecOutcome{CallID: id, Attempt: 1, ExitCode: 1, Layers: fsLayers, Denial: erofs})
			tr(id, states.Sandboxed, states.SandboxDenied, states.CauseSandboxDenial)
			tr(id, states.RetryPrompt, states.Ask, states.CauseSandboxDenial)
			add(id, events.ApprovalRequested{CallID: id, Phase: events.PhaseRetry, Kind: events.ApprovalExec, Command: argv, Cwd: fixtureCwd})
			add(id, events.Decision{CallID: id, Phase: events.PhaseRetry, Decision: "approved", Source: events.SourceUser, At: now.UnixNano()})
			tr(id, states.AwaitingDecision, states.RunUnsandboxed, states.CauseUserApproved)
			add(id, events.ExecStarted{CallID: id, Attempt: 2, Tool: "shell", Argv: argv, Cwd: fixtureCwd, Sandbox: noPlan})
			add(id, events.ExecOutcome{CallID: id, Attempt: 2, ExitCode: 0})
			tr(id, states.Unsandboxed, states.Finish, states.CauseCompleted)
		} else {
			add(id, events.ExecOutcome{CallID: id, Attempt: 1, ExitCode: 0, Layers: fsLayers, Output: "ok\n"})
			tr(id, states.Sandboxed, states.Finish, states.CauseCompleted)
		}
		add(id, events.ToolOutput{CallID: id, Type: events.ItemFunctionCallOutput, Output: "Exit code: 0", Success: true})
	}
	records := j.NextSeq() - 1
	if err := j.Close(); err != nil {
		tb.Fatal(err)
	}
	return j.Path(), records
}

// BenchmarkAuditOneCall audits one call (a denied-and-retried one, in the
// middle) through the call index: the time should not grow with the
// journal.
func BenchmarkAuditOneCall(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		path, _ := genJournal(b, n)
		id := fmt.Sprintf("call-%07d", n/2+7)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, err := Build(path, Options{CallID: id})
				if err != nil || len(r.Calls) != 1 || !r.Calls[0].RanUnsandboxed {
					b.Fatalf("audit of %s: %v", id, err)
				}
			}
		})
	}
}

// BenchmarkAuditFullScan audits a whole 10,000-call journal, for contrast
// with the indexed single-call audit.
func BenchmarkAuditFullScan(b *testing.B) {
	path, records := genJournal(b, 10_000)
	for b.Loop() {
		if err := Stream(context.Background(), path, Options{}, NewJSONWriter(io.Discard)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// peakHeap samples HeapInuse while f runs and returns the highest reading.
func peakHeap(f func()) uint64 {
	var (
		mu   sync.Mutex
		peak uint64
		wg   sync.WaitGroup
	)
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		peak = max(peak, ms.HeapInuse)
		mu.Unlock()
	}
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	sample()
	return peak
}

// BenchmarkAuditStreamed1MRecords audits a journal of about a million
// records to JSON, streamed, and reports the peak heap in use. Generating
// the journal takes a while; run with -benchtime=1x.
func BenchmarkAuditStreamed1MRecords(b *testing.B) {
	path, records := genJournal(b, 173_000)
	b.Logf("journal: %d records", records)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak uint64
	for b.Loop() {
		p := peakHeap(func() {
			if err := Stream(context.Background(), path, Options{}, NewJSONWriter(io.Discard)); err != nil {
				b.Fatal(err)
			}
		})
		peak = max(peak, p)
	}
	b.StopTimer()
	// For contrast: Build keeps every call's audit in memory.
	runtime.GC()
	built := peakHeap(func() {
		if _, err := Build(path, Options{}); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(float64(built)/(1<<20), "build-peak-heap-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(base.HeapInuse)/(1<<20), "heap-before-MiB")
	b.ReportMetric(float64(records), "records")
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
