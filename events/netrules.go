package events

// NetworkRules are the network rules of a permission profile whose
// network goes through the session's egress proxy, as the proxy used
// them: recorded with the session's start (SessionStarted.Network) and
// with a /permissions switch (PermissionsChange.Network), so that a
// resumed session, and verify replay, rebuild the proxy from the journal
// rather than from a configuration that may no longer name the profile
// or may name it with other rules. Journals from before they were
// recorded have none.
type NetworkRules struct {
	// Profile names the permission profile the rules are from.
	Profile string `msgpack:"profile"`
	// Enabled is the profile's network enabled key (off: the proxy
	// refuses every host).
	Enabled bool `msgpack:"enabled"`
	// Mode is "limited" or "full".
	Mode string `msgpack:"mode"`
	// Domains are the profile's domain rules, in the order the profile
	// keeps them (sorted by pattern).
	Domains []DomainRule `msgpack:"domains,omitempty"`
	// UnixSockets are the profile's unix_sockets entries.
	UnixSockets       []UnixSocketRule `msgpack:"unix_sockets,omitempty"`
	AllowLocalBinding bool             `msgpack:"allow_local_binding,omitempty"`
	// Socks5 says the proxy also offers SOCKS5 (enable_socks5).
	Socks5 bool `msgpack:"socks5,omitempty"`
	// ManagedOnly is managed_allowed_domains_only: a host no rule allows
	// is denied, never asked about.
	ManagedOnly bool `msgpack:"managed_only,omitempty"`
}

// DomainRule is one recorded [network.domains] entry.
type DomainRule struct {
	// Host is the normalised host without the "*." of a wildcard.
	Host string `msgpack:"host"`
	// Wildcard says the rule was "*.Host": it covers subdomains only.
	Wildcard bool `msgpack:"wildcard,omitempty"`
	// Action is "allow" or "deny".
	Action string `msgpack:"action"`
	// Key is the configuration key the rule came from.
	Key string `msgpack:"key,omitempty"`
}

// UnixSocketRule is one recorded [network.unix_sockets] entry.
type UnixSocketRule struct {
	Path  string `msgpack:"path"`
	Allow bool   `msgpack:"allow,omitempty"`
}
