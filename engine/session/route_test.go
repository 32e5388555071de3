package session_test

import (
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
)

func TestANetworkOnProfileRoutesASandboxedPlanThroughTheProxy(t *testing.T) {
	eg := &engine.Egress{Profile: "dev"}
	cases := []struct {
		name        string
		mode        events.SandboxMode
		network     bool
		eg          *engine.Egress
		wantNetwork bool
		wantEgress  bool
		wantProxy   bool
	}{
		{"a sandboxed plan goes through the proxy, its own network off", events.SandboxWorkspaceWrite, true, eg, false, true, true},
		{"a read-only plan too", events.SandboxReadOnly, false, eg, false, true, true},
		{"an unsandboxed plan has no namespace to bridge: no proxy", events.SandboxNone, true, eg, true, false, false},
		{"no profile network: the plan as it is", events.SandboxWorkspaceWrite, true, nil, true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan, got := session.RouteNetwork(events.SandboxPlan{Mode: tc.mode, Network: tc.network}, tc.eg)
			if plan.Network != tc.wantNetwork || plan.Egress != tc.wantEgress || (got != nil) != tc.wantProxy {
				t.Fatalf("RouteNetwork = network %v, egress %v, proxy %v; want %v, %v, %v", plan.Network, plan.Egress, got != nil, tc.wantNetwork, tc.wantEgress, tc.wantProxy)
			}
		})
	}
}
