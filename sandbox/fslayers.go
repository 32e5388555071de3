package sandbox

import (
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/layers"
)

// fsLayers forecasts the layers a plan gets from the helper's mount
// namespace, in the order the helper reports them: the hidden paths, the
// unix sockets covered (network off), the private devpts, and the egress
// bridge. The git directory layer depends on the plan's roots and is left
// out.
func (c Capabilities) fsLayers(plan events.SandboxPlan) []string {
	if !c.Namespaces() {
		return nil
	}
	var l []string
	if len(plan.Hidden) > 0 {
		l = append(l, layers.Hidden)
	}
	if !plan.Network {
		l = append(l, layers.UnixSockets)
	}
	l = append(l, layers.Devpts)
	if plan.Egress {
		l = append(l, layers.Egress)
	}
	return l
}
