// Package realpath resolves a path the one way Docket does, for the
// workspace's plan (package engine/workspace) and for the sandbox's own
// checks of the paths it is given (package sandbox): as the kernel would
// when writing it, whether or not it exists yet.
package realpath

import (
	"os"
	"path/filepath"
	"strings"
)

// Resolve resolves an absolute path the way the kernel would when writing
// it: symlinks (even dangling ones) and ".." are followed component by
// component, and the part that does not exist yet is appended as written.
// A path that does not exist yet thus compares like one that does. A
// relative path is only cleaned.
func Resolve(p string) string {
	return resolve(p, 40)
}

func resolve(p string, budget int) string {
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
		return resolve(target+"/"+strings.Join(parts[i+1:], "/"), budget-1)
	}
	return cur
}
