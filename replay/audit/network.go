package audit

import (
	"fmt"
	"io"
	"strings"

	"github.com/docket-engine/docket/events"
)

// Network entry kinds: a person's (or the policy's) answer about a host
// no rule covered, and a connection the egress proxy allowed or refused.
const (
	NetworkKindDecision   = "decision"
	NetworkKindConnection = "connection"
)

// Who decided a network entry, as the audit names it.
const (
	// ByProfile: a domains rule of the permission profile (or the
	// profile's network being off).
	ByProfile = "profile rule"
	// ByRequirements: the managed requirements (managed_allowed_domains_only).
	ByRequirements = "requirements"
	// ByUserOnce, ByUserSession, ByUserAlways and ByUserDeny: a person's
	// answer; ByUserSession also covers later connections on that grant.
	ByUserOnce    = "user: allow once"
	ByUserSession = "user: allow for the session"
	ByUserAlways  = "user: allow always"
	ByUserDeny    = "user: deny"
	// ByPolicyNever: nobody could be asked; the approval policy denied.
	ByPolicyNever = "policy never"
	// ByProxy: the proxy's own refusal (an IP literal, an SNI that
	// differs, a private address, SOCKS5 off).
	ByProxy = "proxy"
)

// NetworkEntry is one network record of the session: a decision about a
// host, or a connection with the rule or decision behind it, named by the
// call and command it came from.
type NetworkEntry struct {
	Seq      uint64   `json:"seq"`
	At       string   `json:"at"`
	Kind     string   `json:"kind"`
	CallID   string   `json:"call_id"`
	Command  []string `json:"command"`
	Conn     uint64   `json:"conn"`
	Protocol string   `json:"protocol"`
	Method   string   `json:"method,omitempty"`
	Host     string   `json:"host"`
	Port     int      `json:"port"`
	// Allowed: the connection went through, or the answer allowed it.
	Allowed bool `json:"allowed"`
	// Rule is the profile key, the recorded answer, or the proxy's reason
	// (connections); the answer (decisions).
	Rule string `json:"rule"`
	// DecidedBy says who decided (ByProfile, ByUserOnce, ByPolicyNever...).
	DecidedBy string `json:"decided_by"`
	// Answer, Source, Profile and RuleWritten are a decision's.
	Answer      string `json:"answer,omitempty"`
	Source      string `json:"source,omitempty"`
	Profile     string `json:"profile,omitempty"`
	RuleWritten string `json:"rule_written,omitempty"`
	// Addr is the address dialled; SNI the TLS server name the client sent.
	Addr string `json:"addr,omitempty"`
	SNI  string `json:"sni,omitempty"`
	// Refusals, on a connection summary, is how many refusals the entry
	// stands for (the proxy counts a call's refusals past its first ones).
	Refusals int `json:"refusals,omitempty"`
}

// netKey names one proxied connection of one call.
type netKey struct {
	call string
	conn uint64
}

// networkDecision audits a decision record.
func (a *auditor) networkDecision(r events.Record, v *events.NetworkDecision) {
	id := orDefault(v.CallID, r.CallID)
	a.networkCallIDs(r, v.CallID, v.Host)
	if a.netAnswers == nil {
		a.netAnswers = map[netKey]string{}
	}
	by := decisionBy(v, a.mcpClient)
	a.netAnswers[netKey{id, v.Conn}] = by
	if !a.wanted(id) {
		return
	}
	e := NetworkEntry{Seq: r.Seq, At: fmtTime(r.At), Kind: NetworkKindDecision, CallID: id, Conn: v.Conn, Protocol: v.Protocol,
		Method: v.Method, Host: v.Host, Port: v.Port, Allowed: answerAllows(v.Answer), Rule: string(v.Answer), DecidedBy: by,
		Answer: string(v.Answer), Source: string(v.Source), Profile: v.Profile, RuleWritten: v.RuleWritten}
	a.networkEntry(e)
}

// networkConnection audits a connection record.
func (a *auditor) networkConnection(r events.Record, v *events.NetworkConnection) {
	id := orDefault(v.CallID, r.CallID)
	a.networkCallIDs(r, v.CallID, v.Host)
	if !a.wanted(id) {
		return
	}
	by, ok := a.netAnswers[netKey{id, v.Conn}]
	if !ok {
		by = ruleBy(v.Rule)
	}
	e := NetworkEntry{Seq: r.Seq, At: fmtTime(r.At), Kind: NetworkKindConnection, CallID: id, Conn: v.Conn, Protocol: v.Protocol,
		Method: v.Method, Host: v.Host, Port: v.Port, Allowed: v.Allowed, Rule: v.Rule, DecidedBy: by, Addr: v.Addr, SNI: v.SNI, Refusals: v.Refusals}
	a.networkEntry(e)
}

// networkCallIDs flags a network record filed under another call than
// the one its body names, or naming none: the egress proxy writes both
// from one id, so the journal is damaged or forged, and verify refuses
// it (replay's checkNetworkRecords). The audit lists the record under the
// call its body names and says here that the journal disagrees.
func (a *auditor) networkCallIDs(r events.Record, named, host string) {
	if named != "" && named == r.CallID {
		return
	}
	if !a.wanted(r.CallID) && !a.wanted(named) {
		return
	}
	a.head.Violations = append(a.head.Violations, Violation{CallID: r.CallID, Seq: r.Seq,
		Message: fmt.Sprintf("a network record for host %s is filed under call %q and names call %q: the journal is damaged or forged (docket verify refuses it)", host, r.CallID, named)})
}

// networkEntry files an entry under its call (when the audit follows the
// call) and in the session's list.
func (a *auditor) networkEntry(e NetworkEntry) {
	if t, ok := a.open[e.CallID]; ok && e.CallID != "" {
		e.Command = t.c.Command
		t.c.Network = append(t.c.Network, e)
	}
	if e.Command == nil {
		e.Command = []string{}
	}
	a.head.Network = append(a.head.Network, e)
}

// answerAllows reports whether a recorded answer let the host through:
// one of the three allow answers. Any other (deny, or a value a damaged
// journal holds) is not shown as allowed, as decisionBy does not name it
// an allow either.
func answerAllows(a events.NetworkAnswer) bool {
	switch a {
	case events.NetworkAllowOnce, events.NetworkAllowSession, events.NetworkAllowAlways:
		return true
	}
	return false
}

// decisionBy names who answered a network question: the approval policy
// when nobody could be asked, else who answered and what.
func decisionBy(v *events.NetworkDecision, client string) string {
	if v.Source == events.SourceNoAnswer {
		return ByPolicyNever
	}
	by := ByUserDeny
	switch v.Answer {
	case events.NetworkAllowOnce:
		by = ByUserOnce
	case events.NetworkAllowSession:
		by = ByUserSession
	case events.NetworkAllowAlways:
		by = ByUserAlways
	}
	if w := who(v.Source, client); w != "user" {
		by = w + strings.TrimPrefix(by, "user")
	}
	return by
}

// ruleBy names who decided a connection no decision record of its own
// covers, from the rule the proxy recorded.
func ruleBy(rule string) string {
	rule = strings.TrimPrefix(rule, "allowed by ")
	switch {
	case strings.HasPrefix(rule, "user: allowed for the session"), strings.HasPrefix(rule, "user: allow_session"):
		return ByUserSession
	case strings.HasPrefix(rule, "user: allow_always"):
		return ByUserAlways
	case strings.HasPrefix(rule, "user: allowed once"):
		return ByUserOnce
	case strings.HasPrefix(rule, "user: denied"):
		return ByUserDeny
	case strings.Contains(rule, "approval policy never"):
		return ByPolicyNever
	case strings.HasPrefix(rule, "managed_allowed_domains_only"):
		return ByRequirements
	case strings.Contains(rule, ".domains"), strings.HasPrefix(rule, "the profile's network is off"):
		return ByProfile
	}
	return ByProxy
}

// verdict is "allowed" or "refused".
func verdict(allowed bool) string {
	if allowed {
		return "allowed"
	}
	return "refused"
}

// networkLine is an entry in one line of text: the same words in the
// text, the HTML and the per-call listing.
func networkLine(e NetworkEntry) string {
	what := e.Protocol
	if e.Method != "" {
		what += " " + e.Method
	}
	if e.Kind == NetworkKindDecision {
		s := fmt.Sprintf("asked about %s:%d (%s, conn %d): %s", e.Host, e.Port, what, e.Conn, e.DecidedBy)
		if e.Profile != "" {
			s += ", profile " + e.Profile
		}
		if e.RuleWritten != "" {
			s += ", rule written " + e.RuleWritten
		}
		return s
	}
	var s string
	switch {
	case e.Refusals > 0 && e.Host == "":
		s = fmt.Sprintf("refused other hosts %d times (%s) by %s", e.Refusals, what, e.DecidedBy)
	case e.Refusals > 0:
		s = fmt.Sprintf("refused %s:%d %d times (%s) by %s", e.Host, e.Port, e.Refusals, what, e.DecidedBy)
	default:
		s = fmt.Sprintf("%s %s:%d (%s, conn %d) by %s", verdict(e.Allowed), e.Host, e.Port, what, e.Conn, e.DecidedBy)
	}
	switch e.DecidedBy {
	case ByProfile, ByRequirements, ByProxy:
		// The rule is the profile key, or the reason: it says more
		// than who. A person's answer is said by who already.
		s += ": " + orDash(e.Rule)
	}
	if e.Addr != "" {
		s += ", dialled " + e.Addr
	}
	if e.SNI != "" && e.SNI != e.Host {
		s += ", SNI " + e.SNI
	}
	return s
}

// ConnectionCounts is how many connections the entries allowed and
// refused. A summary of refusals (Refusals above 0: the proxy counts a
// call's refusals past its first ones instead of recording each) stands
// for that many, so the totals say how many refusals there were, not how
// many records.
func ConnectionCounts(entries []NetworkEntry) (allowed, refused int) {
	for _, e := range entries {
		switch {
		case e.Kind != NetworkKindConnection:
		case e.Allowed:
			allowed++
		default:
			refused += max(e.Refusals, 1)
		}
	}
	return allowed, refused
}

// network lists a call's network entries under it.
func (t *textWriter) network(c *Call) {
	if len(c.Network) == 0 {
		return
	}
	t.printf("  network\n")
	for _, e := range c.Network {
		t.printf("    seq %-5d %s\n", e.Seq, networkLine(e))
	}
}

// networkReport is `docket audit --network`: every network record of the
// session, each with its call and command.
func (t *textWriter) networkReport(r *Report) {
	if len(r.Network) == 0 {
		t.printf("\nno network decisions or connections recorded\n")
		return
	}
	allowed, refused := ConnectionCounts(r.Network)
	t.printf("\nnetwork: %d connection(s) allowed, %d refused\n", allowed, refused)
	for _, e := range r.Network {
		t.printf("  seq %-5d %s  call %s  %s\n", e.Seq, e.At, orDash(e.CallID), quoteArgv(e.Command))
		t.printf("            %s\n", networkLine(e))
	}
}

// networkHTML is a call's network entries as timeline items.
func networkHTML(c *Call) []item {
	var out []item
	for _, e := range c.Network {
		class := "network allowed"
		if !e.Allowed {
			class = "network refused"
		}
		out = append(out, item{e.Seq, e.At, class, "network: " + esc(networkLine(e))})
	}
	return out
}

// network writes the session's network records as a table.
func (h *htmlWriter) network(entries []NetworkEntry) {
	if len(entries) == 0 {
		return
	}
	h.put("<section class=\"network\"><h2>Network</h2><table class=\"network\"><thead><tr><th>#</th><th>call</th><th>command</th>" +
		"<th>record</th><th>host</th><th>port</th><th>protocol</th><th>verdict</th><th>decided by</th><th>rule or answer</th></tr></thead><tbody>\n")
	for _, e := range entries {
		h.put("<tr class=\"%s %s\" data-seq=\"%d\"><td>%d</td><td>%s</td><td><code>%s</code></td><td>%s</td><td><code>%s</code></td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			e.Kind, verdict(e.Allowed), e.Seq, e.Seq, esc(orDash(e.CallID)), esc(quoteArgv(e.Command)), e.Kind, esc(e.Host), e.Port,
			esc(e.Protocol), verdict(e.Allowed), esc(e.DecidedBy), esc(orDash(e.Rule)))
	}
	h.put("</tbody></table></section>\n")
}

// NewNetworkJSONWriter returns a Sink that writes only the session's
// network records, as one JSON object (audit --network --json).
func NewNetworkJSONWriter(w io.Writer) Sink { return &networkJSON{w: w} }

type networkJSON struct{ w io.Writer }

func (n *networkJSON) Begin(*Report) error { return nil }
func (n *networkJSON) Call(*Call) error    { return nil }
func (n *networkJSON) End(r *Report) error {
	entries := r.Network
	if entries == nil {
		entries = []NetworkEntry{}
	}
	out := struct {
		SessionID string         `json:"session_id"`
		Journal   string         `json:"journal"`
		Network   []NetworkEntry `json:"network"`
	}{r.SessionID, r.Journal, entries}
	_, err := io.WriteString(n.w, marshal(out)+"\n")
	return err
}
