package prompt

import (
	"fmt"
	"strings"
)

// The tags around a permissions update, as Codex wraps its own: a reader
// of the conversation (or of a request log) can tell the update from the
// user's words.
const (
	PermissionsOpen  = "<permissions instructions>"
	PermissionsClose = "</permissions instructions>"
)

// PermissionsUpdate is the developer message that tells the model the
// approval policy and the sandbox in force after the approval policy
// changed from previous to in.ApprovalPolicy mid-session (/approvals).
// Like Codex, Docket adds such a message to the conversation instead of
// rewriting the instructions: those are recorded once, at session start,
// and every request before the change was sent with them as they were.
// The message says that it replaces what the instructions said, since
// they go on naming the starting policy.
func PermissionsUpdate(in Input, previous string) (string, error) {
	approval, sandbox, err := policyLines(in)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(PermissionsOpen + "\n")
	fmt.Fprintf(&b, "The approval policy changed from %s to %s. This replaces what earlier instructions said about approvals and the sandbox, until it changes again.\n", previous, in.ApprovalPolicy)
	b.WriteString(approval + "\n")
	b.WriteString(sandbox + "\n")
	b.WriteString(PermissionsClose)
	return b.String(), nil
}

// ProfileUpdate is the developer message that tells the model the sandbox
// it works in after the user switched the permission profile from
// previous to next mid-session (/permissions), as PermissionsUpdate does
// for the approval policy.
func ProfileUpdate(in Input, previous, next string) (string, error) {
	approval, sandbox, err := policyLines(in)
	if err != nil {
		return "", err
	}
	if previous == "" {
		previous = "the sandbox_mode keys"
	}
	var b strings.Builder
	b.WriteString(PermissionsOpen + "\n")
	fmt.Fprintf(&b, "The permission profile changed from %s to %s. This replaces what earlier instructions said about approvals and the sandbox, until it changes again.\n", previous, next)
	b.WriteString(approval + "\n")
	b.WriteString(sandbox + "\n")
	b.WriteString(PermissionsClose)
	return b.String(), nil
}
