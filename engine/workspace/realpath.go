package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// RealPath resolves an absolute path the way the kernel would when writing
// it: symlinks (even dangling ones) and ".." are followed component by
// component, and the part that does not exist yet is appended as written.
// A path that does not exist yet thus compares like one that does. A
// relative path is only cleaned.
func RealPath(p string) string {
	return realPath(p, 40)
}

func realPath(p string, budget int) string {
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
		return realPath(target+"/"+strings.Join(parts[i+1:], "/"), budget-1)
	}
	return cur
}
