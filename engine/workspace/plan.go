package workspace

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docket-engine/docket/events"
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

// GitDirs returns where a .git entry really lives: a symlink's target, or
// the directory a `gitdir:` file names and that directory's commondir.
// A .git directory, or none, gives nothing.
func GitDirs(dotGit string) []string {
	fi, err := os.Lstat(dotGit)
	if err != nil {
		return nil
	}
	var out []string
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		if t, err := filepath.EvalSymlinks(dotGit); err == nil {
			out = append(out, t)
		}
	case fi.Mode().IsRegular():
		gitdir := readPointer(dotGit, "gitdir:")
		if gitdir == "" {
			return nil
		}
		gitdir = RealPath(absolute(gitdir, filepath.Dir(dotGit)))
		out = append(out, gitdir)
		if common := readPointer(filepath.Join(gitdir, "commondir"), ""); common != "" {
			out = append(out, RealPath(absolute(common, gitdir)))
		}
	}
	return out
}

// readPointer returns the first line of a small file, after prefix; "" when
// the file is missing or does not start with prefix.
func readPointer(file, prefix string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }() // read-only: nothing to lose
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return ""
	}
	v, ok := strings.CutPrefix(sc.Text(), prefix)
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}

func absolute(p, base string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
