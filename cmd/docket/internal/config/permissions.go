package config

import (
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/permissions"
	"github.com/docket-engine/docket/states/policy"
)

// PermissionsSelection says which of the two ways of configuring the
// sandbox a session uses, and why.
type PermissionsSelection struct {
	// Profile is the permission profile in force, "" when the legacy
	// sandbox_mode keys are.
	Profile string
	// Why is one sentence naming the keys that decided, for audit and
	// --explain.
	Why string
}

// selectPermissions applies Codex's precedence between default_permissions
// and the legacy keys: sandbox_mode set by any layer but the defaults (a
// file, a config profile, the project, -c, --sandbox) wins over
// default_permissions, as Codex documents; the --permissions flag names a
// profile explicitly and wins over a sandbox_mode from a file, but not
// over --sandbox, which with it is an error.
func selectPermissions(c *Config) (PermissionsSelection, error) {
	perm, hasPerm := c.Sources["default_permissions"]
	mode := c.Sources["sandbox_mode"]
	legacy := mode.Layer != "" && mode.Layer != LayerDefault
	switch {
	case !hasPerm || c.DefaultPermissions == "":
		return PermissionsSelection{}, nil
	case perm.Layer == LayerFlag && mode.Layer == LayerFlag:
		return PermissionsSelection{}, &Error{Source: "--permissions", Key: "default_permissions",
			Msg: "--permissions and --sandbox both choose the sandbox: give one"}
	case perm.Layer == LayerFlag:
		why := fmt.Sprintf("permission profile %s chosen by --permissions", c.DefaultPermissions)
		if legacy {
			why += fmt.Sprintf(" (over sandbox_mode from %s)", mode)
		}
		return PermissionsSelection{Profile: c.DefaultPermissions, Why: why}, nil
	case legacy:
		c.Warnings = append(c.Warnings, fmt.Sprintf("sandbox_mode (%s) wins over default_permissions (%s), as in Codex: permission profile %q is not used; remove sandbox_mode to use it",
			mode, perm, c.DefaultPermissions))
		return PermissionsSelection{Why: fmt.Sprintf("sandbox_mode from %s wins over default_permissions", mode)}, nil
	}
	return PermissionsSelection{Profile: c.DefaultPermissions, Why: fmt.Sprintf("permission profile %s from default_permissions (%s)", c.DefaultPermissions, perm)}, nil
}

// applyPermissions resolves the selected permission profile and sets the
// sandbox keys the session's plan is built from. A profile the sandbox
// cannot enforce yet is refused naming the key, never run with less than
// it says. A profile whose network is on (and not :danger-full-access)
// sets Egress: the caller runs its egress proxy (a session does, and
// docket sandbox --permissions).
func applyPermissions(c *Config, env func(string) string) error {
	sel, err := selectPermissions(c)
	if err != nil {
		return err
	}
	c.PermissionsSelection = sel
	if sel.Profile == "" {
		return nil
	}
	var roots []string
	if c.ProjectDir != "" {
		roots = []string{path.Clean(c.ProjectDir)}
	}
	tmpdirs := []string{"/tmp"}
	if c.Tmpdir != "" && path.IsAbs(c.Tmpdir) && path.Clean(c.Tmpdir) != "/tmp" {
		tmpdirs = append(tmpdirs, path.Clean(c.Tmpdir))
	}
	r, err := permissions.Resolve(sel.Profile, c.Permissions, permissions.Env{ProjectRoots: roots, Tmpdirs: tmpdirs, Home: env("HOME")})
	if err != nil {
		return c.permissionsError(err)
	}
	c.Warnings = append(c.Warnings, r.Warnings...)
	for _, u := range r.Network.UnixSockets {
		if u.Allow {
			// Stricter than asked, never looser: said, not refused.
			c.Warnings = append(c.Warnings, fmt.Sprintf("permissions.%s.network.unix_sockets: %q = \"allow\" is not honoured on Linux yet: the socket stays covered like every other pathname unix socket outside the sandbox", r.Name, u.Path))
		}
	}
	c.PermissionProfile = r
	mode, ww, err := legacyEquivalent(r, roots, tmpdirs, path.Clean(c.Tmpdir))
	if err != nil {
		return c.permissionsError(err)
	}
	if r.Network.Enabled && !r.Network.AllowAll {
		c.Egress = true
	}
	src := c.Sources["default_permissions"]
	c.SandboxMode = mode.String()
	c.SandboxWorkspaceWrite = ww
	c.Sources["sandbox_mode"] = src
	return nil
}

// permissionsError locates a profile error at the key's file and line.
func (c *Config) permissionsError(err error) error {
	var pe *permissions.Error
	if !errors.As(err, &pe) {
		return &Error{Source: "merged configuration", Key: "permissions", Msg: err.Error(), Err: err}
	}
	src, ok := c.Sources.Of(pe.Key)
	if !ok {
		src, _ = c.Sources.Of("default_permissions")
	}
	e := src.errorf(nil, "", "%s", pe.Msg)
	e.Key, e.Err = pe.Key, err
	return e
}

// legacyEquivalent returns the sandbox mode and workspace-write table that
// enforce exactly what the profile says, or an error naming the first rule
// the sandbox cannot enforce yet.
func legacyEquivalent(r *permissions.Resolved, roots, tmpdirs []string, tmpdirEnv string) (policy.SandboxMode, WorkspaceWrite, error) {
	if r.FullAccess {
		return policy.DangerFullAccess, WorkspaceWrite{NetworkAccess: true}, nil
	}
	unenforced := func(key, what string) error {
		return &permissions.Error{Key: key, Msg: what + " is not enforced by Docket's sandbox yet; the profile is refused rather than run with less than it says (docs/decisions.md, \"Permission profiles\")"}
	}
	var ww WorkspaceWrite
	rootRead, projectWrite, tmpWrite := false, false, map[string]bool{}
	var writes []string
	for _, rule := range r.Rules {
		switch {
		case rule.Access == permissions.None:
			// Hidden by mounts: the caller expands the patterns into the
			// plan (engine/workspace.HiddenPaths) and the sandbox covers them.
		case rule.Pattern == "/" && rule.Access == permissions.Read:
			rootRead = true
		case rule.Pattern == "/":
			return "", ww, unenforced(rule.Key, "a writable :root under a sandbox")
		case rule.Glob:
			return "", ww, unenforced(rule.Key, "a glob rule granting "+string(rule.Access))
		case rule.Access == permissions.Write:
			writes = append(writes, rule.Pattern)
			switch {
			case slices.Contains(roots, rule.Pattern):
				projectWrite = true
			case slices.Contains(tmpdirs, rule.Pattern):
				tmpWrite[rule.Pattern] = true
			default:
				ww.WritableRoots = append(ww.WritableRoots, rule.Pattern)
			}
		}
	}
	if !rootRead {
		return "", ww, unenforced("permissions."+r.Name+".filesystem", "hiding every path no rule lists (no \":root\" = \"read\")")
	}
	for _, rule := range r.Rules {
		if rule.Access != permissions.Read || rule.Pattern == "/" {
			continue
		}
		for _, w := range writes {
			if events.Within(rule.Pattern, w) {
				return "", ww, unenforced(rule.Key, "a read-only path inside a writable one")
			}
		}
	}
	if rule, ok := grantInsideHidden(r.Rules); ok {
		return "", ww, unenforced(rule.Key, "a "+string(rule.Access)+" path inside a hidden one")
	}
	if len(writes) == 0 {
		return policy.ReadOnly, ww, nil
	}
	if !projectWrite {
		return "", ww, unenforced("permissions."+r.Name+".filesystem", "writing outside the project while the project stays read-only")
	}
	ww.ExcludeSlashTmp = !tmpWrite["/tmp"]
	ww.ExcludeTmpdirEnvVar = !tmpWrite[tmpdirEnv]
	return policy.WorkspaceWrite, ww, nil
}

// grantInsideHidden finds a read or write rule at or below what a none rule
// names: the rules say the nearer one wins, but the sandbox covers the
// hidden directory whole (an empty directory over it), so the grant would
// silently be hidden too. Such a profile is refused instead (issue 29,
// "overlapping rules"). A none rule below a grant is what hiding is for.
func grantInsideHidden(rules []permissions.Rule) (permissions.Rule, bool) {
	for _, g := range rules {
		if g.Access == permissions.None || g.Glob || g.Pattern == "/" {
			continue
		}
		for _, n := range rules {
			if n.Access != permissions.None {
				continue
			}
			for a := g.Pattern; a != "/" && a != "." && a != ""; a = path.Dir(a) {
				// The same literal path granted and hidden: the strictest
				// wins in the rules too, so hiding it is what they say.
				if !n.Glob && a == n.Pattern && a != g.Pattern || n.Glob && permissions.MatchGlob(n.Pattern, a) {
					return g, true
				}
			}
		}
	}
	return permissions.Rule{}, false
}
