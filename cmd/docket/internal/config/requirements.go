package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/states/permissions"
)

// DefaultRequirementsFiles are the managed requirements files read when
// LoadOptions.RequirementsFiles is nil: Docket's own, and Codex's when
// present (an administrator's pins for Codex hold for Docket too).
func DefaultRequirementsFiles() []string {
	return []string{"/etc/docket/requirements.toml", "/etc/codex/requirements.toml"}
}

// loadRequirements reads every requirements file that exists. A file that
// exists but cannot be read or parsed, or that sets a key Docket does not
// know, is an error: an administrator's constraint is never ignored.
func loadRequirements(paths []string) ([]permissions.Requirement, error) {
	var out []permissions.Requirement
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &Error{Source: path, Msg: fmt.Sprintf("cannot read the managed requirements file: %v; refusing to start rather than run without it", err), Err: err}
		}
		var f permissions.RequirementsFile
		if err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&f); err != nil {
			return nil, requirementsDecodeError(path, err)
		}
		r, err := permissions.ParseRequirement(path, f)
		if err != nil {
			return nil, requirementError(path, data, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// requirementError locates a requirement ParseRequirement refused at its
// key's line; an error of another kind is said as it is, not lost.
func requirementError(path string, data []byte, err error) *Error {
	var pe *permissions.Error
	if !errors.As(err, &pe) {
		return &Error{Source: path, Msg: err.Error(), Err: err}
	}
	return &Error{Source: path, Line: lineIndex(data)[pe.Key], Key: pe.Key, Msg: pe.Msg, Err: err}
}

// refusedByRequirement names the requirement and the file of a choice
// permissions.Check refused; an error of another kind is said as it is.
func refusedByRequirement(err error) *Error {
	var re *permissions.RequirementError
	if !errors.As(err, &re) {
		return &Error{Source: "managed requirements", Msg: err.Error(), Err: err}
	}
	return &Error{Source: re.File, Key: re.Key, Msg: re.Msg, Err: err}
}

func requirementsDecodeError(path string, err error) *Error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		de := sm.Errors[0]
		line, _ := de.Position()
		return &Error{Source: path, Line: line, Key: joinKey(de.Key()), Err: err,
			Msg: "a requirement Docket does not enforce; refusing to start rather than ignore it (Docket enforces allowed_approval_policies, allowed_sandbox_modes, allowed_permission_profiles, [experimental_network] domains and managed_allowed_domains_only)"}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &Error{Source: path, Line: line, Key: joinKey(de.Key()), Msg: strings.TrimPrefix(de.Error(), "toml: "), Err: err}
	}
	return &Error{Source: path, Msg: err.Error(), Err: err}
}

// applyRequirements refuses a configuration a managed requirement
// forbids, naming the requirement and where the forbidden value came
// from, and narrows the profile's network by the managed domains.
func applyRequirements(c *Config, paths []string) error {
	reqs, err := loadRequirements(paths)
	if err != nil {
		return err
	}
	c.Requirements = reqs
	if len(reqs) == 0 {
		return nil
	}
	src := func(key string) string {
		s, _ := c.Sources.Of(key)
		return s.String()
	}
	choice := permissions.Choice{ApprovalPolicy: c.ApprovalPolicy, SandboxMode: c.SandboxMode, Profile: c.PermissionsSelection.Profile,
		ApprovalSource: src("approval_policy"), SandboxSource: src("sandbox_mode"), ProfileSource: src("default_permissions")}
	if err := permissions.Check(reqs, choice); err != nil {
		return refusedByRequirement(err)
	}
	if c.PermissionProfile != nil {
		permissions.ApplyManagedNetwork(&c.PermissionProfile.Network, reqs)
	}
	return nil
}
