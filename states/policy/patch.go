package policy

import (
	"path/filepath"

	"github.com/docket-engine/docket/events"
)

// PatchRequirement decides an apply_patch call from the absolute paths it
// writes (adds, updates, deletes, move targets), each resolved the way the
// kernel would resolve it (the engine reads the disk), and the sandbox plan of the
// session: untrusted → NeedsApproval; danger-full-access or external-sandbox
// → Skip; every path inside the plan's writable roots and outside its
// read-only subpaths → Skip, the write running sandboxed; otherwise
// NeedsApproval, Forbidden under never ("writing outside of the project";
// under read-only, where nothing is writable, Codex's "writing is blocked
// by read-only sandbox").
func PatchRequirement(paths []string, ap ApprovalPolicy, sb SandboxPolicy, plan events.SandboxPlan) Requirement {
	approval, mode := normalize(ap, sb.Mode)
	switch {
	case approval == Untrusted:
		return Requirement{Kind: NeedsApproval, Cause: CauseUntrustedPolicy, Reason: "approval policy is untrusted"}
	case mode == DangerFullAccess:
		return Requirement{Kind: Skip, Cause: CauseDangerFullAccess}
	case mode == ExternalSandbox:
		return Requirement{Kind: Skip, Cause: CauseExternalSandbox}
	}
	if PathsWritable(paths, plan) {
		return Requirement{Kind: Skip, Cause: CausePolicySkip}
	}
	reason := "writing outside of the project"
	if mode == ReadOnly {
		reason = "writing is blocked by read-only sandbox"
	}
	if approval == Never {
		return Requirement{Kind: Forbidden, Cause: CauseOutsideWritableRoots, Reason: reason + "; the approval policy is never"}
	}
	return Requirement{Kind: NeedsApproval, Cause: CauseOutsideWritableRoots, Reason: reason}
}

// PathsWritable reports whether a plan lets every path be written: each is
// absolute and inside a writable root and outside the read-only subpaths.
// The paths must already be resolved the way the kernel would (symlinks,
// ".."); the engine does that (engine/workspace.RealPath) and records it.
// No paths, or a plan without writable roots, is not writable.
func PathsWritable(paths []string, plan events.SandboxPlan) bool {
	if len(plan.WritableRoots) == 0 || len(paths) == 0 {
		return false
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return false
		}
		if !events.WithinAny(p, plan.WritableRoots) || events.WithinAny(p, plan.ReadOnlySubpaths) {
			return false
		}
	}
	return true
}
