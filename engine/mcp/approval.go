package mcp

import "strconv"

// Requirement decides whether a call to t needs the user's approval under
// the server's approval setting: "always" asks, "never" does not, and "auto"
// (or "") asks unless the tool declares readOnlyHint, and always asks for a
// tool that declares destructiveHint. An unknown setting asks. The reason is
// a sentence for the approval prompt and the audit.
func Requirement(approval string, t Tool) (needsApproval bool, reason string) {
	switch approval {
	case ApprovalAlways:
		return true, "server " + t.Server + " is configured with approval = \"always\""
	case ApprovalNever:
		return false, "server " + t.Server + " is configured with approval = \"never\""
	case ApprovalAuto, "":
		switch {
		case t.Destructive:
			return true, "tool " + t.Name + " declares destructiveHint"
		case t.ReadOnly:
			return false, "tool " + t.Name + " declares readOnlyHint"
		default:
			return true, "tool " + t.Name + " does not declare readOnlyHint"
		}
	default:
		return true, "server " + t.Server + " has an unknown approval setting " + strconv.Quote(approval)
	}
}
