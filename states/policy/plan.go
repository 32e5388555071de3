package policy

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docket-engine/docket/events"
)

// Plan modes as events.SandboxPlan spells them.
const (
	PlanNone = "none"
)

// WritableRoots returns the canonical writable roots of a workspace-write
// policy: cwd, the configured roots (relative ones against cwd), /tmp unless
// excluded and $TMPDIR unless excluded; symlinks resolved where the path
// exists, deduplicated, sorted. Other modes have none.
func WritableRoots(sb SandboxPolicy, cwd, tmpdirEnv string) []string {
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
	out := make([]string, 0, len(cands))
	for _, c := range cands {
		out = append(out, Canonical(c))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// SandboxPlan computes the plan a sandboxed run of this policy gets; mode
// "none" for danger-full-access and external-sandbox. The protected subpaths
// are listed even when they do not exist yet, so they cannot be created.
func SandboxPlan(sb SandboxPolicy, cwd, tmpdirEnv string, requireProtectedPaths bool) events.SandboxPlan {
	_, mode := normalize(Untrusted, sb.Mode)
	switch mode {
	case DangerFullAccess, ExternalSandbox:
		return events.SandboxPlan{Mode: PlanNone}
	case ReadOnly:
		return events.SandboxPlan{Mode: string(ReadOnly), RequireProtectedPaths: requireProtectedPaths}
	}
	roots := WritableRoots(sb, cwd, tmpdirEnv)
	return events.SandboxPlan{
		Mode:                  string(WorkspaceWrite),
		WritableRoots:         roots,
		ReadOnlySubpaths:      ProtectedSubpaths(roots),
		Network:               sb.NetworkAccess,
		RequireProtectedPaths: requireProtectedPaths,
	}
}

// ProtectedSubpaths lists, for each root, root/.git, root/.docket and
// root/.agents, plus what a .git symlink or `gitdir:` file (and a worktree's
// commondir) points to when that lies inside a root; sorted, deduplicated.
func ProtectedSubpaths(roots []string) []string {
	var out []string
	for _, root := range roots {
		for _, name := range []string{".git", ".docket", ".agents"} {
			out = append(out, filepath.Join(root, name))
		}
		for _, target := range gitTargets(filepath.Join(root, ".git")) {
			if within(target, roots) {
				out = append(out, target)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gitTargets returns where a .git entry really lives: a symlink's target, or
// the directory a `gitdir:` file names and that directory's commondir.
func gitTargets(dotGit string) []string {
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
		gitdir = Canonical(absolute(gitdir, filepath.Dir(dotGit)))
		out = append(out, gitdir)
		if common := readPointer(filepath.Join(gitdir, "commondir"), ""); common != "" {
			out = append(out, Canonical(absolute(common, gitdir)))
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
	defer f.Close()
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

// Canonical resolves an absolute path the way the kernel would when writing
// it: symlinks (even dangling ones) and ".." are followed component by
// component, and the part that does not exist yet is appended as written.
// A path that does not exist yet thus compares like one that does.
func Canonical(p string) string {
	return canonical(p, 40)
}

func canonical(p string, budget int) string {
	if !filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parts := strings.Split(p, "/")
	cur := "/"
	for i, part := range parts {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{cur}, parts[i:]...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil || budget == 0 {
			return filepath.Join(append([]string{next}, parts[i+1:]...)...)
		}
		if !filepath.IsAbs(target) {
			target = cur + "/" + target
		}
		return canonical(target+"/"+strings.Join(parts[i+1:], "/"), budget-1)
	}
	return cur
}

func absolute(p, base string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// within reports whether p is one of roots or below one.
func within(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}
