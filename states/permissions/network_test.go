package permissions

import "testing"

func TestHostVerdicts(t *testing.T) {
	on := true
	r := mustResolve(t, "p", map[string]Profile{"p": {Network: &NetworkTable{Enabled: &on, Domains: map[string]string{
		"example.com":       "allow",
		"*.example.com":     "allow",
		"bad.example.com":   "deny",
		"*.evil.org":        "deny",
		"evil.org":          "allow",
		"GitHub.com.":       "allow",
		"bücher.de":         "allow",
		"*.internal.test":   "allow",
		"api.internal.test": "allow",
	}}}})
	cases := []struct {
		host  string
		want  Action
		rule  string
		exact bool
	}{
		{"example.com", Allow, "example.com", true},
		{"www.example.com", Allow, "*.example.com", false},
		{"a.b.example.com", Allow, "*.example.com", false},
		{"bad.example.com", Deny, "bad.example.com", false},
		{"x.evil.org", Deny, "*.evil.org", false},
		{"evil.org", Allow, "evil.org", true},
		{"notexample.com", Ask, "", false},
		{"github.com", Allow, "github.com", true},
		{"GITHUB.COM.", Allow, "github.com", true},
		{"xn--bcher-kva.de", Allow, "xn--bcher-kva.de", true},
		{"BÜCHER.de", Allow, "xn--bcher-kva.de", true},
		{"api.internal.test", Allow, "api.internal.test", true},
		{"db.internal.test", Allow, "*.internal.test", false},
		{"127.0.0.1", Deny, "", false},
		{"[::1]", Deny, "", false},
		{"::ffff:10.0.0.1", Deny, "", false},
		{"a..b", Deny, "", false},
		{"", Deny, "", false},
	}
	for _, tc := range cases {
		v := r.Network.Decide(tc.host)
		rule := ""
		if v.Rule != nil {
			rule = v.Rule.Pattern()
		}
		if v.Action != tc.want || rule != tc.rule || v.Exact != tc.exact {
			t.Errorf("Decide(%q) = %s rule %q exact %v (%s), want %s rule %q exact %v", tc.host, v.Action, rule, v.Exact, v.Reason, tc.want, tc.rule, tc.exact)
		}
	}
}

func TestNetworkOffDeniesEverything(t *testing.T) {
	r := mustResolve(t, BuiltinWorkspace, nil)
	if v := r.Network.Decide("example.com"); v.Action != Deny {
		t.Fatalf("Decide under :workspace = %+v, want deny", v)
	}
}
