package permissions

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// RequirementsFile is one managed requirements.toml as the config decodes
// it: what an administrator pins and no user, project, flag or command
// may widen.
type RequirementsFile struct {
	AllowedApprovalPolicies   []string             `toml:"allowed_approval_policies"`
	AllowedSandboxModes       []string             `toml:"allowed_sandbox_modes"`
	AllowedPermissionProfiles []string             `toml:"allowed_permission_profiles"`
	Network                   *ManagedNetworkTable `toml:"experimental_network"`
}

// ManagedNetworkTable is the requirements' network table (Codex's
// [experimental_network]).
type ManagedNetworkTable struct {
	Domains map[string]string `toml:"domains"`
	// ManagedAllowedDomainsOnly: only the managed allow rules may let a
	// host through; the profile's own allows and every question become
	// denials.
	ManagedAllowedDomainsOnly bool `toml:"managed_allowed_domains_only"`
}

// Requirement is one parsed requirements file.
type Requirement struct {
	// File is where it was read, for messages.
	File                      string
	ApprovalPolicies          []string
	SandboxModes              []string
	PermissionProfiles        []string
	Domains                   []DomainRule
	ManagedAllowedDomainsOnly bool
}

// ParseRequirement checks one requirements file's values; every error is
// an *Error naming the key.
func ParseRequirement(file string, f RequirementsFile) (Requirement, error) {
	r := Requirement{File: file, ApprovalPolicies: f.AllowedApprovalPolicies, SandboxModes: f.AllowedSandboxModes,
		PermissionProfiles: f.AllowedPermissionProfiles}
	check := func(key string, got, valid []string) error {
		for _, v := range got {
			if !slices.Contains(valid, v) {
				return &Error{Key: key, Msg: fmt.Sprintf("%q is not one of %s", v, strings.Join(valid, ", "))}
			}
		}
		if got != nil && len(got) == 0 {
			return &Error{Key: key, Msg: "an empty list would allow nothing: leave the key out to allow everything"}
		}
		return nil
	}
	if err := check("allowed_approval_policies", f.AllowedApprovalPolicies, []string{"untrusted", "on-failure", "on-request", "never"}); err != nil {
		return r, err
	}
	if err := check("allowed_sandbox_modes", f.AllowedSandboxModes, []string{"read-only", "workspace-write", "danger-full-access", "external-sandbox"}); err != nil {
		return r, err
	}
	if f.AllowedPermissionProfiles != nil && len(f.AllowedPermissionProfiles) == 0 {
		return r, &Error{Key: "allowed_permission_profiles", Msg: "an empty list would allow nothing: leave the key out to allow everything"}
	}
	if f.Network != nil {
		r.ManagedAllowedDomainsOnly = f.Network.ManagedAllowedDomainsOnly
		for pattern, v := range f.Network.Domains {
			d, msg := parseDomain(pattern, v)
			if msg != "" {
				return r, &Error{Key: keyPath("experimental_network", "domains", pattern), Msg: msg}
			}
			d.Key = file + ": " + keyPath("experimental_network", "domains", pattern)
			r.Domains = append(r.Domains, d)
		}
		sort.Slice(r.Domains, func(i, j int) bool { return r.Domains[i].Pattern() < r.Domains[j].Pattern() })
	}
	return r, nil
}

// Choice is what a session would run with, for the requirements to judge.
type Choice struct {
	ApprovalPolicy string
	// SandboxMode is the mode in force (a profile's equivalent included).
	SandboxMode string
	// Profile is the permission profile in force, "" under the legacy keys.
	Profile string
	// Sources name where each value came from, for the message.
	ApprovalSource, SandboxSource, ProfileSource string
}

// RequirementError is a choice a managed requirement forbids.
type RequirementError struct {
	File, Key, Msg string
}

func (e *RequirementError) Error() string { return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg) }

// Check refuses a choice any requirement forbids, naming the file and
// the requirement.
func Check(reqs []Requirement, c Choice) error {
	for _, r := range reqs {
		if r.ApprovalPolicies != nil && !slices.Contains(r.ApprovalPolicies, c.ApprovalPolicy) {
			return &RequirementError{File: r.File, Key: "allowed_approval_policies",
				Msg: fmt.Sprintf("approval policy %s (%s) is not allowed; allowed: %s", c.ApprovalPolicy, c.ApprovalSource, strings.Join(r.ApprovalPolicies, ", "))}
		}
		if r.SandboxModes != nil && !slices.Contains(r.SandboxModes, c.SandboxMode) {
			return &RequirementError{File: r.File, Key: "allowed_sandbox_modes",
				Msg: fmt.Sprintf("sandbox mode %s (%s) is not allowed; allowed: %s", c.SandboxMode, c.SandboxSource, strings.Join(r.SandboxModes, ", "))}
		}
		if r.PermissionProfiles != nil {
			if c.Profile == "" {
				return &RequirementError{File: r.File, Key: "allowed_permission_profiles",
					Msg: fmt.Sprintf("only permission profiles are allowed (%s), but sandbox_mode (%s) is in force: remove it and set default_permissions", strings.Join(r.PermissionProfiles, ", "), c.SandboxSource)}
			}
			if !slices.Contains(r.PermissionProfiles, c.Profile) {
				return &RequirementError{File: r.File, Key: "allowed_permission_profiles",
					Msg: fmt.Sprintf("permission profile %s (%s) is not allowed; allowed: %s", c.Profile, c.ProfileSource, strings.Join(r.PermissionProfiles, ", "))}
			}
		}
	}
	return nil
}

// ApplyManagedNetwork narrows a profile's network by the requirements:
// managed rules are added (a managed deny wins as every deny does), and
// under managed_allowed_domains_only the profile's own allow rules are
// dropped and a host no managed rule allows is denied, never asked about.
func ApplyManagedNetwork(n *Network, reqs []Requirement) {
	if n.AllowAll {
		return
	}
	for _, r := range reqs {
		if r.ManagedAllowedDomainsOnly {
			n.Domains = slices.DeleteFunc(n.Domains, func(d DomainRule) bool { return d.Action == Allow })
			n.ManagedOnly = true
		}
	}
	for _, r := range reqs {
		n.Domains = append(n.Domains, r.Domains...)
	}
	sort.SliceStable(n.Domains, func(i, j int) bool { return n.Domains[i].Pattern() < n.Domains[j].Pattern() })
}
