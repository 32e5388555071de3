package render

import (
	"fmt"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// network shows the egress proxy's records: every answer about a host and
// every refused connection (what the command could not reach, and why),
// and with Verbose the allowed connections too.
func (h *Human) network(n engine.Notice) {
	if d := n.NetworkDecision; d != nil {
		who := "user"
		if d.Source == events.SourceNoAnswer {
			who = "approval policy never"
		}
		h.line("%s call %s: %s:%d %s by %s", h.style(styleYellow, "network:"), orDefault(d.CallID, n.CallID), d.Host, d.Port,
			string(d.Answer), who)
		return
	}
	c := n.NetworkConnection
	if c == nil {
		return
	}
	switch {
	case !c.Allowed:
		h.line("%s call %s: refused %s %s:%d (%s)", h.style(styleYellow, "network:"), orDefault(c.CallID, n.CallID), c.Protocol, c.Host, c.Port, c.Rule)
	case h.opts.Verbose:
		h.line("%s", h.style(styleDim, fmt.Sprintf("network: call %s: allowed %s %s:%d (%s)", orDefault(c.CallID, n.CallID), c.Protocol, c.Host, c.Port, c.Rule)))
	}
}
