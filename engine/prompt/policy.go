package prompt

import (
	"fmt"
	"strings"

	"github.com/docket-engine/docket/states/policy"
)

// approvalText says what each approval policy means for the model.
var approvalText = map[policy.ApprovalPolicy]string{
	policy.Untrusted: "Approval policy: untrusted. Every command except known read-only ones and every file edit needs the user's approval before it runs; expect to wait, and keep each command focused so it is easy to approve.",
	policy.OnFailure: "Approval policy: on-failure. Commands run in the sandbox without asking. If the sandbox blocks one, the user is asked whether it may run again without the sandbox.",
	policy.OnRequest: "Approval policy: on-request. Commands run in the sandbox without asking. When a command truly needs more than the sandbox allows (for example network access or writing outside the writable roots), call shell with \"sandbox_permissions\": \"require_escalated\" and a one-sentence \"justification\"; the user decides. Do not request escalation for work the sandbox permits.",
	policy.Never:     "Approval policy: never. No one will be asked: anything the sandbox or the rules refuse fails, and you must find another way or report that you could not do it. Do not request escalation.",
}

// Policy states the approval policy and sandbox to the model.
func Policy(in Input) (string, error) {
	approval, sandbox, err := policyLines(in)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Environment\n")
	if in.Cwd != "" {
		fmt.Fprintf(&b, "Working directory: %s\n", in.Cwd)
	}
	b.WriteString(approval + "\n")
	b.WriteString(sandbox + "\n")
	return b.String(), nil
}

// egressSentence describes a network that goes only through the
// session's egress proxy.
const egressSentence = "Network access goes only through a proxy (HTTP_PROXY, HTTPS_PROXY and ALL_PROXY are set): hosts the permission profile allows are reachable by name, others are refused or put to the user, and direct connections fail."

// policyLines are the sentences that state the approval policy and the
// sandbox, shared by the instructions and the mid-session update.
func policyLines(in Input) (approval, sandbox string, err error) {
	approval, ok := approvalText[policy.ApprovalPolicy(in.ApprovalPolicy)]
	if !ok {
		return "", "", fmt.Errorf("approval policy %q: unknown (want untrusted, on-failure, on-request or never)", in.ApprovalPolicy)
	}
	switch policy.SandboxMode(in.SandboxMode) {
	case policy.ReadOnly:
		sandbox = "Sandbox: read-only. Commands can read files but cannot write anywhere or use the network."
		if in.EgressProxy {
			sandbox = "Sandbox: read-only. Commands can read files but cannot write anywhere. " + egressSentence
		}
	case policy.WorkspaceWrite:
		roots := in.WritableRoots
		if len(nonEmpty(roots)) == 0 {
			roots = []string{in.Cwd}
		}
		sandbox = fmt.Sprintf("Sandbox: workspace-write. Commands and patches may write under %s; .git, .docket and .agents inside them stay read-only; everything else is read-only.", strings.Join(nonEmpty(roots), ", "))
		switch {
		case in.EgressProxy:
			sandbox += " " + egressSentence
		case in.NetworkAccess:
			sandbox += " Network access is allowed."
		default:
			sandbox += " Network access is blocked."
		}
	case policy.DangerFullAccess:
		sandbox = "Sandbox: none (danger-full-access). Commands run with the user's full permissions and network access, so be careful with anything destructive."
	case policy.ExternalSandbox:
		sandbox = "Sandbox: external. Docket runs inside a sandbox set up by someone else; its limits are not known here."
	default:
		return "", "", fmt.Errorf("sandbox mode %q: unknown (want read-only, workspace-write, danger-full-access or external-sandbox)", in.SandboxMode)
	}
	return approval, sandbox, nil
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
