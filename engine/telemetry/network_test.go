package telemetry

import (
	"context"
	"testing"

	"github.com/docket-engine/docket/replay/audit"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A summary of refusals (the proxy counts a call's refusals past its
// first ones) counts as the refusals it stands for on the call span, and
// its event carries the count.
func TestARefusalSummaryIsExportedWithItsCount(t *testing.T) {
	c := &audit.Call{CallID: "r1", Network: []audit.NetworkEntry{
		{Kind: audit.NetworkKindConnection, CallID: "r1", Conn: 1, Host: "ok.test", Port: 443, Allowed: true, Rule: "allowed", At: "2026-11-28T06:00:00Z"},
		{Kind: audit.NetworkKindConnection, CallID: "r1", Conn: 2, Host: "denied.test", Port: 443, Rule: "denied", At: "2026-11-28T06:00:01Z"},
		{Kind: audit.NetworkKindConnection, CallID: "r1", Host: "denied.test", Port: 443, Refusals: 1000, Rule: "1000 refusal(s) counted", At: "2026-11-28T06:00:02Z"},
	}}
	counts := map[string]int64{}
	for _, a := range networkCounts(c) {
		counts[string(a.Key)] = a.Value.AsInt64()
	}
	if counts["docket.network.allowed_count"] != 1 || counts["docket.network.refused_count"] != 1001 {
		t.Errorf("counts %v, want 1 allowed and 1001 refused (1 + a summary of 1000)", counts)
	}

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	b := NewBuilder(tp.Tracer("test"), ArgvRedacted, 0)
	_, span := tp.Tracer("test").Start(context.Background(), "call")
	b.networkEvents(span, c)
	span.End()
	spans := exp.GetSpans()
	if len(spans) != 1 || len(spans[0].Events) != 3 {
		t.Fatalf("%d spans, want one with three network events: %+v", len(spans), spans)
	}
	for i, ev := range spans[0].Events {
		var refusals int64
		for _, a := range ev.Attributes {
			if a.Key == "docket.network.refusals" {
				refusals = a.Value.AsInt64()
			}
		}
		if want := int64(c.Network[i].Refusals); refusals != want {
			t.Errorf("event %d: docket.network.refusals %d, want %d", i, refusals, want)
		}
	}
}
