package telemetry

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// spansOf builds the spans of a recorded journal with an in-memory
// exporter.
func spansOf(t *testing.T, recs []events.Record, quiet uint64) tracetest.SpanStubs {
	return spansOfEnd(t, recs, quiet, true)
}

func spansOfEnd(t *testing.T, recs []events.Record, quiet uint64, open bool) tracetest.SpanStubs {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithIDGenerator(idGenerator{}))
	b := NewBuilder(tp.Tracer("test"), ArgvRedacted, quiet)
	for _, r := range recs {
		b.Record(r)
	}
	b.End(open)
	return exp.GetSpans()
}

func readJournal(t *testing.T, name string) []events.Record {
	t.Helper()
	var recs []events.Record
	if err := journal.Scan(filepath.Join("..", "..", "testdata", "journals", name), 1, func(r events.Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestSpansOfASandboxDenialRetryJournal(t *testing.T) {
	recs := readJournal(t, filepath.Join("causes", "sandbox-denial-retry.docket"))
	spans := spansOf(t, recs, 0)
	var turns, calls int
	unsandboxed := 0
	for _, s := range spans {
		if s.SpanContext.TraceID() != spans[0].SpanContext.TraceID() {
			t.Errorf("span %s is in another trace", s.Name)
		}
		if s.Name == "docket.turn" {
			turns++
			if s.Parent.IsValid() {
				t.Errorf("the turn span has a parent")
			}
			continue
		}
		calls++
		if !s.Parent.IsValid() {
			t.Errorf("call span %s has no parent turn", s.Name)
		}
		for _, a := range s.Attributes {
			if a.Key == "docket.ran_unsandboxed" && a.Value.AsBool() {
				unsandboxed++
			}
		}
		if len(s.Events) == 0 {
			t.Errorf("call span %s has no transition events", s.Name)
		}
	}
	if turns == 0 || calls == 0 || unsandboxed != 1 {
		t.Fatalf("%d turns, %d calls, %d unsandboxed; want some turns and calls and one unsandboxed run", turns, calls, unsandboxed)
	}
	// The ids depend on the journal alone: building again gives the same.
	again := spansOf(t, recs, 0)
	if len(again) != len(spans) {
		t.Fatalf("%d spans the second time, %d the first", len(again), len(spans))
	}
	for i := range spans {
		if spans[i].SpanContext.SpanID() != again[i].SpanContext.SpanID() || spans[i].Parent.SpanID() != again[i].Parent.SpanID() ||
			!spans[i].StartTime.Equal(again[i].StartTime) || !spans[i].EndTime.Equal(again[i].EndTime) {
			t.Errorf("span %d differs the second time: %v vs %v", i, spans[i].SpanContext, again[i].SpanContext)
		}
	}
	// What an earlier process finished is not sent by a resumed one.
	if quiet := spansOf(t, recs, recs[len(recs)-1].Seq); len(quiet) != 0 {
		t.Errorf("a resumed session re-sent %d spans of finished work", len(quiet))
	}
}

// TestALiveSessionDoesNotSendUnfinishedCalls: the process that parks a
// session leaves its waiting call unsent (the resumed process sends it
// finished, under the same id); docket export of the same records sends
// it as pending.
func TestALiveSessionDoesNotSendUnfinishedCalls(t *testing.T) {
	all := readJournal(t, "parked-resume.docket")
	var first []events.Record
	for _, r := range all {
		if r.Kind == events.KindSessionResumed {
			break
		}
		first = append(first, r)
	}
	outcomes := func(spans tracetest.SpanStubs) (out []string) {
		for _, s := range spans {
			for _, a := range s.Attributes {
				if a.Key == "docket.outcome" {
					out = append(out, a.Value.AsString())
				}
			}
		}
		return out
	}
	if got := outcomes(spansOfEnd(t, first, 0, false)); len(got) != 0 {
		t.Errorf("the parking process sent calls %v", got)
	}
	if got := outcomes(spansOfEnd(t, first, 0, true)); !slices.Contains(got, "pending") {
		t.Errorf("export of the parked journal sent %v, want a pending call", got)
	}
	if got := outcomes(spansOfEnd(t, all, first[len(first)-1].Seq, false)); len(got) == 0 || slices.Contains(got, "pending") {
		t.Errorf("the resumed process sent %v, want the finished calls", got)
	}
}
