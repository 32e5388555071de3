package replay_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/replay"
)

// BenchmarkVerifyReplayFlat replays recorded sessions of two lengths, ten
// times apart: a flat cost per transition shows as the same ns/transition
// at both (issue 31: replay in every go test, whatever the journal's size).
// Each length is recorded once, outside the timed sub-benchmarks.
func BenchmarkVerifyReplayFlat(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		recs := bigSession(b, n)
		transitions := count(recs, events.KindTransition)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				if _, err := replay.Verify(context.Background(), recs, replay.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuTime(b) - cpu0
			n := float64(transitions * b.N)
			b.ReportMetric(n/b.Elapsed().Seconds(), "transitions/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/transition")
			// CPU time (all threads, the collector's included) per
			// transition: on a shared, loaded machine the wall clock
			// measures the other processes as much as the replay.
			b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/transition")
			b.ReportMetric(n/cpu.Seconds(), "transitions/cpu-s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
