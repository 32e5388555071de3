package permissions

import (
	"errors"
	"strings"
	"testing"
)

func TestRequirementsRefuseWhatTheyDoNotAllow(t *testing.T) {
	r, err := ParseRequirement("/etc/docket/requirements.toml", RequirementsFile{
		AllowedApprovalPolicies:   []string{"untrusted", "on-request"},
		AllowedSandboxModes:       []string{"read-only", "workspace-write"},
		AllowedPermissionProfiles: []string{":read-only", "dev"},
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := []Requirement{r}
	ok := Choice{ApprovalPolicy: "on-request", SandboxMode: "workspace-write", Profile: "dev"}
	if err := Check(reqs, ok); err != nil {
		t.Fatalf("an allowed choice: %v", err)
	}
	cases := []struct {
		name   string
		change func(*Choice)
		key    string
	}{
		{"approval policy never", func(c *Choice) { c.ApprovalPolicy = "never" }, "allowed_approval_policies"},
		{"full access", func(c *Choice) { c.SandboxMode = "danger-full-access" }, "allowed_sandbox_modes"},
		{"a profile not listed", func(c *Choice) { c.Profile = ":workspace" }, "allowed_permission_profiles"},
		{"the legacy keys", func(c *Choice) { c.Profile = "" }, "allowed_permission_profiles"},
	}
	for _, tc := range cases {
		c := ok
		tc.change(&c)
		var re *RequirementError
		if err := Check(reqs, c); !errors.As(err, &re) || re.Key != tc.key || re.File != "/etc/docket/requirements.toml" {
			t.Errorf("%s: err = %v, want the requirement %s named", tc.name, err, tc.key)
		}
	}
}

func TestBadRequirementsNameTheKey(t *testing.T) {
	cases := []struct {
		f   RequirementsFile
		key string
	}{
		{RequirementsFile{AllowedApprovalPolicies: []string{"sometimes"}}, "allowed_approval_policies"},
		{RequirementsFile{AllowedSandboxModes: []string{}}, "allowed_sandbox_modes"},
		{RequirementsFile{AllowedPermissionProfiles: []string{}}, "allowed_permission_profiles"},
		{RequirementsFile{Network: &ManagedNetworkTable{Domains: map[string]string{"x.com:443": "deny"}}}, `experimental_network.domains."x.com:443"`},
	}
	for _, tc := range cases {
		_, err := ParseRequirement("req.toml", tc.f)
		var e *Error
		if !errors.As(err, &e) || e.Key != tc.key {
			t.Errorf("%+v: err = %v, want key %s", tc.f, err, tc.key)
		}
	}
}

func TestManagedDomainsCannotBeWidened(t *testing.T) {
	on := true
	profile := map[string]Profile{"p": {Network: &NetworkTable{Enabled: &on, Domains: map[string]string{
		"pypi.org": "allow", "evil.example": "allow", "*.corp.example": "allow",
	}}}}
	r, err := ParseRequirement("req.toml", RequirementsFile{Network: &ManagedNetworkTable{Domains: map[string]string{
		"evil.example": "deny", "github.com": "allow",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	res := mustResolve(t, "p", profile)
	ApplyManagedNetwork(&res.Network, []Requirement{r})
	for host, want := range map[string]Action{"evil.example": Deny, "pypi.org": Allow, "github.com": Allow, "unknown.test": Ask} {
		if v := res.Network.Decide(host); v.Action != want {
			t.Errorf("managed rules: Decide(%s) = %s, want %s", host, v.Action, want)
		}
	}
	if v := res.Network.Decide("evil.example"); v.Rule == nil || !strings.HasPrefix(v.Rule.Key, "req.toml: ") {
		t.Errorf("the managed deny is not named: %+v", v)
	}

	only, _ := ParseRequirement("req.toml", RequirementsFile{Network: &ManagedNetworkTable{ManagedAllowedDomainsOnly: true, Domains: map[string]string{"github.com": "allow"}}})
	res = mustResolve(t, "p", profile)
	ApplyManagedNetwork(&res.Network, []Requirement{only})
	for host, want := range map[string]Action{"pypi.org": Deny, "x.corp.example": Deny, "github.com": Allow, "unknown.test": Deny} {
		if v := res.Network.Decide(host); v.Action != want {
			t.Errorf("managed only: Decide(%s) = %s, want %s", host, v.Action, want)
		}
	}
}
