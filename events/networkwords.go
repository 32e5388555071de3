package events

// The words every view (the audit, `docket sandbox --explain` and -v, the
// chat's status line and /status, the /permissions summary) uses for how
// a run reaches the network, so that they never disagree.
const (
	NetworkWordsOn     = "on"
	NetworkWordsOff    = "off"
	NetworkWordsEgress = "through the egress proxy"
	// NetworkWordsInconsistent is said of a record that claims both a
	// direct network and the egress proxy, which no plan docket builds
	// does (an egress plan's own network is off): a damaged or crafted
	// journal. The words claim no filtering the record cannot vouch for.
	NetworkWordsInconsistent = "on or through the egress proxy: the record is inconsistent (it says both), so take it as on"
)

// NetworkWords says how a run reached the network: directly (on), not at
// all (off), or only through the session's egress proxy (egress). A
// record that says both on and egress is inconsistent and is named so,
// never taken for the proxy's filtering.
func NetworkWords(on, egress bool) string {
	switch {
	case on && egress:
		return NetworkWordsInconsistent
	case egress:
		return NetworkWordsEgress
	case on:
		return NetworkWordsOn
	}
	return NetworkWordsOff
}

// NetworkWords says how a command under the plan reaches the network; an
// unsandboxed plan's network is on whatever it records.
func (p SandboxPlan) NetworkWords() string {
	if !p.Sandboxed() {
		return NetworkWordsOn
	}
	return NetworkWords(p.Network, p.Egress)
}
