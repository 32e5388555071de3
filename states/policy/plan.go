package policy

import (
	"path/filepath"
	"slices"

	"github.com/docket-engine/docket/events"
)

// RootCandidates returns the writable roots of a workspace-write policy as
// configured, before the disk is consulted: cwd, the configured roots
// (relative ones against cwd), /tmp unless excluded and $TMPDIR unless
// excluded (only if absolute). Other modes have none. The engine resolves
// them on disk (engine/workspace) and passes them to BuildSandboxPlan.
func RootCandidates(sb SandboxPolicy, cwd, tmpdirEnv string) []string {
	if sb.Mode != WorkspaceWrite {
		return nil
	}
	cwd = absolute(cwd, "/")
	cands := []string{cwd}
	for _, r := range sb.WritableRoots {
		if r != "" {
			cands = append(cands, absolute(r, cwd))
		}
	}
	if !sb.ExcludeSlashTmp {
		cands = append(cands, "/tmp")
	}
	if !sb.ExcludeTmpdirEnvVar && tmpdirEnv != "" && filepath.IsAbs(tmpdirEnv) {
		cands = append(cands, tmpdirEnv)
	}
	return cands
}

// BuildSandboxPlan assembles the plan a sandboxed run of this policy gets,
// from the writable roots as resolved on disk and the directories their
// `.git` entries really point to: mode "none" for danger-full-access and
// external-sandbox, no writable roots and no network for read-only. The
// protected subpaths are listed even when they do not exist yet, so they
// cannot be created.
func BuildSandboxPlan(sb SandboxPolicy, roots, gitDirs []string, requireProtectedPaths bool) events.SandboxPlan {
	_, mode := normalize(Untrusted, sb.Mode)
	switch mode {
	case DangerFullAccess, ExternalSandbox:
		return events.SandboxPlan{Mode: events.SandboxNone}
	case ReadOnly:
		return events.SandboxPlan{Mode: events.SandboxReadOnly, RequireProtectedPaths: requireProtectedPaths}
	}
	roots = slices.Compact(slices.Sorted(slices.Values(roots)))
	return events.SandboxPlan{
		Mode:                  events.SandboxWorkspaceWrite,
		WritableRoots:         roots,
		ReadOnlySubpaths:      ProtectedSubpaths(roots, gitDirs),
		Network:               sb.NetworkAccess,
		RequireProtectedPaths: requireProtectedPaths,
	}
}

// ProtectedNames are the entries kept read-only under every writable root
// (made, empty and read-only, where missing): .git (hooks and config run
// outside the sandbox), .docket (the project's rules and config), .agents
// (skills and instructions) and .codex (a Codex project's config and
// rules, which Codex 0.171 protects too and Docket loads for a trusted
// project).
func ProtectedNames() []string { return []string{".git", ".docket", ".agents", ".codex"} }

// ProtectedSubpaths lists, for each root, root/NAME for each of
// ProtectedNames, plus each of gitDirs (where a .git symlink or `gitdir:`
// file, and a worktree's commondir, point) that lies inside a root; sorted,
// deduplicated.
func ProtectedSubpaths(roots, gitDirs []string) []string {
	var out []string
	for _, root := range roots {
		for _, name := range ProtectedNames() {
			out = append(out, filepath.Join(root, name))
		}
	}
	for _, d := range gitDirs {
		if events.WithinAny(d, roots) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func absolute(p, base string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
