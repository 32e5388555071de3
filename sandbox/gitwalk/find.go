// Package gitwalk finds the git directories a sandboxed call must not be
// able to write, and what it did not look at.
//
// A hooked .git (hooks, core.fsmonitor, core.pager...) runs code the next
// time anyone uses git there, outside the sandbox. The plan protects
// root/.git of every writable root; Find adds the git directories of the
// other repositories a root lies in or contains:
//
//   - the .git of the repository around a root (a workspace given as a
//     subdirectory of a checkout), and a stub .git in every directory
//     above a root that is itself writable (so that no repository can be
//     planted where git would find it from the root);
//   - every .git (directory, gitdir file or link) found by walking the roots,
//     with what a gitdir file or link points to.
//
// The walk is bounded (MaxEntries directory entries, MaxTime) and fails
// closed: no part of a writable root is writable unless the walk looked at
// it. A walk cut short says so (Set.Complete), and the directories it did
// not look into (the ones it had not reached, the one it was reading, the
// roots it never started, any it could not open) are in Set.Unseen, which
// the sandbox binds read-only for the call: filling a root with
// directories can make calls fail to write there, never make a repository
// writable.
package gitwalk

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/docket-engine/docket/events"
)

// Bounds of the walk, per call, over all roots together. The entry bound
// is what normally stops it (about 20 to 30 ms here, a loaded 2-vCPU VM
// with slow syscalls); the time bound is a safety net for slow file
// systems (NFS, FUSE), which makes the result depend on timing there.
const (
	MaxEntries = 10000
	MaxTime    = 200 * time.Millisecond
)

// EnclosingRoot returns the innermost of roots that holds p, or "".
func EnclosingRoot(p string, roots []string) string {
	best := ""
	for _, r := range roots {
		if events.Within(p, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// Set is what Find found. Held are the .git paths above the roots (a
// repository around a root, or a stub to make in a writable parent): this
// call's own to hold. Found are the .git entries the walk saw below the
// roots, and Targets what a found gitdir file or link points to: they
// belong to whoever made them, so they are bound as they are and never
// created, except a target that is missing (a dangling pointer is how a
// repository would be planted), which gets a stub.
type Set struct {
	Held    []string
	Found   []string
	Targets []string
	// Unseen are the directories below the roots the walk did not look
	// into, at most maxUnseen of them (see coarsenUnseen): bound
	// read-only for the call.
	Unseen   []string
	Complete bool // false when the walk hit its bounds
}

// maxUnseen bounds how many directories a call binds read-only for a walk
// cut short: each is a mount in the helper, and the attacker decides how
// many directories the walk leaves unread.
const maxUnseen = 64

// Find returns the git directories to protect for these writable roots
// (clean, absolute), only those under a root, each list sorted, and what
// the walk did not look into. The root holding cwd is walked first, then
// the others deepest first (see walkOrder), so that a large shared root
// (/tmp) spends the budget after the workspace and the named roots.
// The first way a path is seen decides its list, and the roots' own
// surroundings are looked at first. The walk below the roots comes from
// cache when it is still valid (see Cache); nil walks every time. What
// lies above the roots and where each found .git points are looked at
// again on every call either way.
func Find(roots []string, cwd string, cache *Cache) Set {
	var set Set
	seen := map[string]bool{}
	add := func(list *[]string, p string) {
		if events.WithinAny(p, roots) && !seen[p] {
			seen[p] = true
			*list = append(*list, p)
		}
	}
	for _, r := range roots {
		enclosingGitDirs(r, roots, func(p string) { add(&set.Held, p) })
	}
	order := walkOrder(roots)
	if first := EnclosingRoot(cwd, roots); first != "" {
		order = append([]string{first}, slices.DeleteFunc(order, func(r string) bool { return r == first })...)
	}
	var unseen []string
	if cache != nil {
		found, cachedUnseen, complete := cache.walk(order, roots)
		unseen = cachedUnseen
		for _, p := range found {
			// One gone since (say a stub another call held when
			// the walk saw it) is not found now: where it is the target
			// of another .git, it must be held as one.
			if _, err := os.Lstat(p); err != nil {
				continue
			}
			add(&set.Found, p)
			for _, t := range Targets(p) {
				add(&set.Targets, t)
			}
		}
		set.Complete = complete
	} else {
		unseen, set.Complete = walk(order, roots, func(p string, target bool) {
			if target {
				add(&set.Targets, p)
			} else {
				add(&set.Found, p)
			}
		}, MaxEntries, time.Now().Add(MaxTime))
	}
	set.Unseen = coarsenUnseen(unseen, roots, maxUnseen)
	sort.Strings(set.Held)
	sort.Strings(set.Found)
	sort.Strings(set.Targets)
	return set
}

// coarsenUnseen returns unseen without the directories below another of
// it, sorted, and with at most limit entries where the roots allow: while
// there are more, the directories holding the most unseen entries take
// their place (a node_modules rather than each package in it, so that a
// lone unseen directory elsewhere stays alone), and when every such
// directory holds just one, the deepest entries are lifted. A root stays
// itself. A directory taking its unseen entries' place is one the walk
// did see; binding it read-only as well costs the command writes there
// for this call, never a protection.
func coarsenUnseen(unseen, roots []string, limit int) []string {
	set := outermost(unseen)
	liftable := func(p string) bool { return p != "/" && !slices.Contains(roots, p) }
	for len(set) > limit {
		count := map[string]int{}
		deepest := 0
		for _, p := range set {
			if liftable(p) {
				count[filepath.Dir(p)]++
				deepest = max(deepest, strings.Count(p, "/"))
			}
		}
		if len(count) == 0 {
			break // only roots left: one per root at most
		}
		parents := make([]string, 0, len(count))
		for par := range count {
			parents = append(parents, par)
		}
		sort.Slice(parents, func(i, j int) bool {
			a, b := parents[i], parents[j]
			if count[a] != count[b] {
				return count[a] > count[b]
			}
			if da, db := strings.Count(a, "/"), strings.Count(b, "/"); da != db {
				return da > db
			}
			return a < b
		})
		lift := map[string]bool{}
		if count[parents[0]] > 1 {
			excess := len(set) - limit
			for _, par := range parents {
				if excess <= 0 || count[par] < 2 {
					break
				}
				lift[par] = true
				excess -= count[par] - 1
			}
		} else {
			for _, p := range set {
				if liftable(p) && strings.Count(p, "/") == deepest {
					lift[filepath.Dir(p)] = true
				}
			}
		}
		for i, p := range set {
			if liftable(p) && lift[filepath.Dir(p)] {
				set[i] = filepath.Dir(p)
			}
		}
		set = outermost(set)
	}
	return set
}

// outermost returns paths sorted, without duplicates and without any path
// below another of them.
func outermost(paths []string) []string {
	in := make(map[string]bool, len(paths))
	for _, p := range paths {
		in[p] = true
	}
	var out []string
	for p := range in {
		below := false
		for d := p; d != "/" && !below; {
			d = filepath.Dir(d)
			below = in[d]
		}
		if !below {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// enclosingGitDirs looks for the repository around root the way git does,
// upwards from root's parent: the first .git found is protected with what
// it points to; every writable directory passed on the way gets its .git
// protected too (a stub where there is none).
func enclosingGitDirs(root string, roots []string, add func(string)) {
	for dir := root; dir != "/"; {
		dir = filepath.Dir(dir)
		dotGit := filepath.Join(dir, ".git")
		if _, err := os.Lstat(dotGit); err == nil {
			add(dotGit)
			for _, t := range Targets(dotGit) {
				add(t)
			}
			return
		}
		if events.WithinAny(dir, roots) {
			add(dotGit)
		}
	}
}

// Targets returns where a .git entry really lives: a link's target, or the
// directory a `gitdir:` file names and that directory's commondir, symlinks
// resolved where they exist. A .git directory, or none, gives nothing. The
// engine's plan and the sandbox's walk both use it.
func Targets(dotGit string) []string {
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
		gitdir := firstLineAfter(dotGit, "gitdir:")
		if gitdir == "" {
			return nil
		}
		if !filepath.IsAbs(gitdir) {
			gitdir = filepath.Join(filepath.Dir(dotGit), gitdir)
		}
		if r, err := filepath.EvalSymlinks(gitdir); err == nil {
			gitdir = r
		}
		out = append(out, filepath.Clean(gitdir))
		if common := firstLineAfter(filepath.Join(gitdir, "commondir"), ""); common != "" {
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitdir, common)
			}
			if r, err := filepath.EvalSymlinks(common); err == nil {
				common = r
			}
			out = append(out, filepath.Clean(common))
		}
	}
	return out
}

// firstLineAfter returns the first line of a small file after prefix, ""
// when the file is missing, does not start with prefix, or the line holds
// a NUL byte.
func firstLineAfter(file, prefix string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }() // read-only: nothing to flush, and Linux frees the fd even when close fails
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return ""
	}
	v, ok := strings.CutPrefix(sc.Text(), prefix)
	if !ok || strings.IndexByte(v, 0) >= 0 {
		// A NUL names no file (git cannot follow it either); passed on,
		// it would make the sandbox's spec invalid for every command.
		return ""
	}
	return strings.TrimSpace(v)
}

// walkOrder is the order the roots share the walk's budget in: deeper
// roots first (an --add-dir, a $TMPDIR below /tmp) and the shallow shared
// ones (/tmp) last. A cut walk makes what it did not reach read-only, and
// a root it never started is read-only whole: walking /tmp, which every
// process on the host fills, before a root the user named would make that
// root read-only whenever /tmp is large. A root nested in another is
// deeper, so it is walked (and stays writable) before its ancestor.
func walkOrder(roots []string) []string {
	order := append([]string(nil), roots...)
	sort.SliceStable(order, func(i, j int) bool {
		return strings.Count(order[i], "/") > strings.Count(order[j], "/")
	})
	return order
}
