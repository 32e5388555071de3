package permissions

import (
	"fmt"
	"strings"
)

// Explain says in words what a resolved profile lets a command see,
// change and reach, one line per rule, for `docket sandbox --explain`.
func (r *Resolved) Explain() []string {
	if r.FullAccess {
		return []string{fmt.Sprintf("profile %s: no sandbox: every path readable and writable, every host reachable", r.Name)}
	}
	out := []string{fmt.Sprintf("profile %s", r.Name)}
	covered := false
	for _, rule := range r.Rules {
		if rule.Pattern == "/" {
			covered = true
		}
		var what string
		switch rule.Access {
		case None:
			what = "hidden (unreadable by any path)"
		case Read:
			what = "readable, not writable"
		case Write:
			what = "readable and writable"
		}
		kind := ""
		if rule.Glob {
			kind = fmt.Sprintf(" (glob, expanded %d levels deep)", r.GlobScanMaxDepth)
		}
		out = append(out, fmt.Sprintf("  %s%s: %s  [%s]", rule.Pattern, kind, what, rule.Key))
	}
	if !covered {
		out = append(out, "  every path no rule names: hidden")
	}
	n := r.Network
	switch {
	case !n.Enabled:
		out = append(out, "  network: off (an empty network namespace, no proxy)")
	default:
		mode := "every method"
		if n.Mode == ModeLimited {
			mode = "GET, HEAD and OPTIONS in plain HTTP only"
		}
		out = append(out, "  network: only through the session's egress proxy, by name, "+mode)
		for _, d := range n.Domains {
			out = append(out, fmt.Sprintf("    %s: %s  [%s]", d.Pattern(), d.Action, d.Key))
		}
		if n.ManagedOnly {
			out = append(out, "    any other host: denied (managed_allowed_domains_only)")
		} else {
			out = append(out, "    any other host: asked under the approval policy (never: denied)")
		}
		out = append(out, "    IP literals: refused; loopback, link-local and private addresses: only for an exact allow rule")
		if n.AllowLocalBinding {
			out = append(out, "    local binding: allowed (TCP bind and listen on the command's own loopback; allow_local_binding)")
		} else {
			out = append(out, "    local binding: refused (no TCP bind or listen; allow_local_binding is off)")
		}
		if len(n.UnixSockets) > 0 {
			var s []string
			for _, u := range n.UnixSockets {
				v := "none"
				if u.Allow {
					v = "allow"
				}
				s = append(s, u.Path+" "+v)
			}
			out = append(out, "    unix sockets: "+strings.Join(s, ", "))
		}
	}
	return out
}
