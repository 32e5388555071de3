package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/otelcoltest"
	"github.com/docket-engine/docket/cmd/docket/internal/render"
	"github.com/docket-engine/docket/cmd/docket/internal/render/jsonlschema"
	"github.com/docket-engine/docket/engine/telemetry"
)

// TestASessionsNetworkRecordsReachTheStreamTheRendererAndTheAudit runs
// docket exec under a profile whose network goes through the session's
// egress proxy: an allowed request, a host the rules deny, and a host no
// rule covers (denied unasked under never). The engine shows each record
// it journals: exec --json --json-extensions carries network.decision and
// network.connection (valid against the schema), Codex's stream (--json
// alone) carries none, the human renderer says the answer and the
// refusals, and docket audit --network of the session lists the same
// connections with their call and who decided.
func TestASessionsNetworkRecordsReachTheStreamTheRendererAndTheAudit(t *testing.T) {
	bin := cliBinary(t)
	home, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(egressConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	port, _ := loopbackServer(t)
	calls := [][]string{
		{"curl", "-sS", "--max-time", "10", "http://localhost:" + port + "/"},
		{"curl", "-sS", "-f", "--max-time", "10", "http://denied.test:" + port + "/"},
		{"curl", "-sS", "-f", "--max-time", "10", "http://unknown.test:" + port + "/"},
	}

	ext := egressSession(t, bin, home, work, "net", []string{"-a", "never", "--json-extensions"}, calls...)
	if ext.code != 0 || ext.threadID == "" {
		t.Fatalf("exec --json --json-extensions: exit %d %s", ext.code, ext.out)
	}
	if got := outputOf(t, ext.out, "c1"); !strings.Contains(got, "served localhost:"+port) {
		t.Fatalf("c1 did not reach the server through the proxy: %q", got)
	}
	s, err := jsonlschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	counts, err := s.Validate(bytes.NewReader([]byte(ext.out)))
	if err != nil {
		t.Fatalf("the extended stream breaks the schema: %v\n%s", err, ext.out)
	}
	if counts[render.EventNetworkConnection] != 3 || counts[render.EventNetworkDecision] != 1 {
		t.Errorf("extended stream: %d connections, %d decisions, want 3 and 1:\n%s",
			counts[render.EventNetworkConnection], counts[render.EventNetworkDecision], ext.out)
	}
	for _, want := range []string{
		`"type":"network.connection","call_id":"c1"`,
		`"host":"localhost","port":` + port + `,"protocol":"http","method":"GET","allowed":true,"rule":"permissions.net.network.domains.localhost"`,
		`"host":"denied.test","port":` + port + `,"protocol":"http","method":"GET","allowed":false`,
		`"type":"network.decision","call_id":"c3"`,
		`"host":"unknown.test","port":` + port + `,"protocol":"http","method":"GET","answer":"deny","source":"no_approver","profile":"net"`,
	} {
		if !strings.Contains(ext.out, want) {
			t.Errorf("the extended stream lacks %s:\n%s", want, ext.out)
		}
	}

	codex := egressSession(t, bin, home, work, "net", []string{"-a", "never"}, calls...)
	if codex.code != 0 || strings.Contains(codex.out, `"network.`) {
		t.Errorf("Codex's stream (--json alone): exit %d, carries Docket's network events:\n%s", codex.code, codex.out)
	}

	human := scriptedExec(t, bin, home, []string{"-C", work, "--permissions", "net", "-a", "never", "--color", "never"}, calls...)
	if human.code != 0 {
		t.Fatalf("human mode: exit %d %s", human.code, human.out)
	}
	for _, want := range []string{
		"network: call c2: refused http denied.test:" + port + " (permissions.net.network.domains.\"denied.test\")",
		"network: call c3: unknown.test:" + port + " deny by approval policy never",
		"network: call c3: refused http unknown.test:" + port,
	} {
		if !strings.Contains(human.out, want) {
			t.Errorf("the human renderer lacks %q:\n%s", want, human.out)
		}
	}
	if strings.Contains(human.out, "allowed http localhost") {
		t.Errorf("the human renderer shows an allowed connection without --verbose:\n%s", human.out)
	}

	code, out, errOut := runAuditCLI(t, "audit", "--home", home, ext.threadID)
	if code != 0 || !strings.Contains(out, "policy  approval never, sandbox workspace-write, network through the egress proxy") ||
		!strings.Contains(out, "network through the egress proxy\n") {
		t.Errorf("the audit does not say the session's network went through the egress proxy: exit %d %s\n%s", code, errOut, out)
	}
	code, out, errOut = runAuditCLI(t, "audit", "--home", home, "--network", ext.threadID)
	if code != 0 {
		t.Fatalf("audit --network: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"allowed localhost:" + port + " (http GET, conn 1) by profile rule: permissions.net.network.domains.localhost",
		"refused denied.test:" + port + " (http GET, conn 2) by profile rule: permissions.net.network.domains.\"denied.test\"",
		"asked about unknown.test:" + port + " (http GET, conn 3): policy never, profile net",
		"refused unknown.test:" + port + " (http GET, conn 3) by policy never",
		"call c1  curl -sS --max-time 10 http://localhost:" + port + "/",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit --network lacks %q:\n%s", want, out)
		}
	}
}

// TestASessionsNetworkRecordsGoToTheLiveExport runs docket exec with
// [otel] pointing at the real test collector under a profile whose network
// goes through the egress proxy: the proxy's records, journaled by the
// engine through the telemetry-wrapped log, become span events of their
// call as the session runs, with the counts on the call span.
func TestASessionsNetworkRecordsGoToTheLiveExport(t *testing.T) {
	bin := cliBinary(t)
	col := otelcoltest.Start(t, otelcoltest.Bin(t), otelcoltest.FreePort(t), otelcoltest.FreePort(t))
	home, work := t.TempDir(), t.TempDir()
	conf := egressConfig + fmt.Sprintf("\n[otel]\nendpoint = \"http://127.0.0.1:%d\"\n", col.GRPC)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	port, _ := loopbackServer(t)
	r := egressSession(t, bin, home, work, "net", []string{"-a", "never"},
		[]string{"curl", "-sS", "--max-time", "10", "http://localhost:" + port + "/"},
		[]string{"curl", "-sS", "-f", "--max-time", "10", "http://unknown.test:" + port + "/"})
	if r.code != 0 || r.threadID == "" {
		t.Fatalf("docket exec: exit %d %s", r.code, r.out)
	}
	type ev struct{ name, host, allowed, by string }
	got := map[string][]ev{}
	counts := map[string]string{}
	for _, s := range col.Stop(t) {
		id := otelcoltest.Attr(s.Attributes, "docket.call.id")
		if otelcoltest.Attr(s.Attributes, "docket.session.id") != r.threadID || id == "" || !strings.HasPrefix(s.Name, "docket.call") {
			continue
		}
		counts[id] = otelcoltest.Attr(s.Attributes, "docket.network.allowed_count") + "/" + otelcoltest.Attr(s.Attributes, "docket.network.refused_count")
		for _, e := range s.Events {
			if strings.HasPrefix(e.Name, "docket.network.") {
				got[id] = append(got[id], ev{e.Name, otelcoltest.Attr(e.Attributes, "docket.network.host"),
					otelcoltest.Attr(e.Attributes, "docket.network.allowed"), otelcoltest.Attr(e.Attributes, "docket.network.decided_by")})
			}
		}
	}
	want := map[string][]ev{
		"c1": {{telemetry.EventNetworkConnection, "localhost", "true", "profile rule"}},
		"c2": {{telemetry.EventNetworkDecision, "unknown.test", "false", "policy never"}, {telemetry.EventNetworkConnection, "unknown.test", "false", "policy never"}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("network span events by call\n got %v\nwant %v", got, want)
	}
	if counts["c1"] != "1/0" || counts["c2"] != "0/1" {
		t.Errorf("call span counts (allowed/refused) %v, want c1 1/0 and c2 0/1", counts)
	}
}
