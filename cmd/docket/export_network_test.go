package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/otelcoltest"
	"github.com/docket-engine/docket/engine/telemetry"
)

// docket export sends a session's network records to a real collector:
// each decision and connection a span event of its call, with the host,
// port, verdict and who decided, and the call span counts them.
func TestExportCarriesNetworkRecordsToARealCollector(t *testing.T) {
	t.Parallel()
	col := otelcoltest.Start(t, otelcoltest.Bin(t), otelcoltest.FreePort(t), otelcoltest.FreePort(t))
	home := t.TempDir()
	networkJournal(t, home)
	var out, errb strings.Builder
	code := run([]string{"export", netSessionID, "--home", home, "-c", fmt.Sprintf(`otel.endpoint="http://127.0.0.1:%d"`, col.GRPC)},
		strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out.String(), errb.String())
	}
	var call *otelcoltest.Span
	spans := col.Stop(t)
	for i, s := range spans {
		if otelcoltest.Attr(s.Attributes, "docket.call.id") == "k1" {
			call = &spans[i]
		}
	}
	if call == nil {
		t.Fatalf("no span of call k1 among %d", len(spans))
	}
	if a, r := otelcoltest.Attr(call.Attributes, "docket.network.allowed_count"), otelcoltest.Attr(call.Attributes, "docket.network.refused_count"); a != "2" || r != "1" {
		t.Errorf("call span counts %s allowed, %s refused; want 2 and 1", a, r)
	}
	type ev struct{ name, host, allowed, by string }
	var got []ev
	for _, e := range call.Events {
		if !strings.HasPrefix(e.Name, "docket.network.") {
			continue
		}
		got = append(got, ev{e.Name, otelcoltest.Attr(e.Attributes, "docket.network.host"), otelcoltest.Attr(e.Attributes, "docket.network.allowed"),
			otelcoltest.Attr(e.Attributes, "docket.network.decided_by")})
	}
	want := []ev{
		{telemetry.EventNetworkConnection, "api.github.com", "true", "profile rule"},
		{telemetry.EventNetworkDecision, "example.org", "true", "user: allow once"},
		{telemetry.EventNetworkConnection, "example.org", "true", "user: allow once"},
		{telemetry.EventNetworkDecision, "nope.example", "false", "policy never"},
		{telemetry.EventNetworkConnection, "nope.example", "false", "policy never"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("network span events\n got %v\nwant %v", got, want)
	}
}
