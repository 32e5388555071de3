package workspace

import (
	"path/filepath"
	"slices"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/states/policy"
)

// SandboxPlan computes the plan a sandboxed run of this policy gets in cwd:
// it resolves the writable roots on disk, finds the git directories their
// `.git` entries point to, and lets policy.BuildSandboxPlan assemble the
// plan. Sessions compute it once and record it in session_started.
func SandboxPlan(sb policy.SandboxPolicy, cwd, tmpdirEnv string, requireProtectedPaths bool) events.SandboxPlan {
	roots := WritableRoots(sb, cwd, tmpdirEnv)
	var gitDirs []string
	for _, r := range roots {
		gitDirs = append(gitDirs, GitDirs(filepath.Join(r, ".git"))...)
	}
	return policy.BuildSandboxPlan(sb, roots, gitDirs, requireProtectedPaths)
}

// WritableRoots returns the writable roots of a workspace-write policy
// (policy.RootCandidates) resolved on disk, deduplicated and sorted. Other
// modes have none.
func WritableRoots(sb policy.SandboxPolicy, cwd, tmpdirEnv string) []string {
	cands := policy.RootCandidates(sb, cwd, tmpdirEnv)
	if len(cands) == 0 {
		return nil
	}
	out := make([]string, 0, len(cands))
	for _, c := range cands {
		out = append(out, RealPath(c))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GitDirs returns where a .git entry really lives (gitwalk.Targets),
// each path resolved as RealPath resolves it, so that the plan names the
// same directories the sandbox binds.
func GitDirs(dotGit string) []string {
	out := gitwalk.Targets(dotGit)
	for i, p := range out {
		out[i] = RealPath(p)
	}
	return out
}
