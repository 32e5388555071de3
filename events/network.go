package events

// NetworkAnswer is a person's (or the policy's) answer about a host no
// rule of the permission profile covers.
type NetworkAnswer string

// The answers, as Codex offers them, plus the policy's own denial.
const (
	NetworkAllowOnce    NetworkAnswer = "allow_once"
	NetworkAllowSession NetworkAnswer = "allow_session"
	// NetworkAllowAlways also writes an allow rule to the profile's
	// domains in the user's config.
	NetworkAllowAlways NetworkAnswer = "allow_always"
	NetworkDeny        NetworkAnswer = "deny"
)

// NetworkDecision records the answer about one host a sandboxed command
// asked the egress proxy for and no rule covered. It is an input, durable
// before a byte is forwarded: verify replay feeds it back and asks nobody.
type NetworkDecision struct {
	// CallID is the call whose command asked.
	CallID string `msgpack:"call_id"`
	// Conn numbers the command's connection within the session's proxy.
	Conn uint64 `msgpack:"conn"`
	Host string `msgpack:"host"`
	Port int    `msgpack:"port"`
	// Protocol is http-connect, http or socks5; Method the HTTP method of a
	// plain request.
	Protocol string        `msgpack:"protocol"`
	Method   string        `msgpack:"method,omitempty"`
	Answer   NetworkAnswer `msgpack:"answer"`
	// Source says who answered: user, or the approval policy (never).
	Source DecisionSource `msgpack:"source"`
	// Profile is the permission profile the host was not covered by, and
	// RuleWritten the domains key an allow_always answer wrote.
	Profile     string `msgpack:"profile"`
	RuleWritten string `msgpack:"rule_written,omitempty"`
}

// NetworkConnection records one connection the egress proxy allowed or
// refused, with the rule or decision behind it. It is an input (what the
// command did): verify replay compares nothing against it and opens no
// socket.
type NetworkConnection struct {
	CallID   string `msgpack:"call_id"`
	Conn     uint64 `msgpack:"conn"`
	Protocol string `msgpack:"protocol"`
	Host     string `msgpack:"host"`
	Port     int    `msgpack:"port"`
	Method   string `msgpack:"method,omitempty"`
	Allowed  bool   `msgpack:"allowed"`
	// Rule is the profile key, the recorded answer ("user: allowed once"),
	// or why the proxy refused (an IP literal, an SNI that differs, a
	// private address).
	Rule string `msgpack:"rule"`
	// Addr is the address dialled, SNI the TLS server name the client sent.
	Addr string `msgpack:"addr,omitempty"`
	SNI  string `msgpack:"sni,omitempty"`
	// Refusals, set on a summary, is how many refusals of Host (no Host:
	// of other hosts) the record stands for: past a call's first refusals
	// the proxy counts them instead of recording each (Allowed is false).
	Refusals int `msgpack:"refusals,omitempty"`
}
