package permissions

import (
	"path"
	"strings"
)

// hasGlob reports whether a path pattern has a glob metacharacter.
func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// components splits a cleaned absolute path into its names ("/" has none).
func components(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// checkGlob rejects a pattern path.Match cannot read, and "**" glued to
// other characters (it only means "any number of directories" alone).
func checkGlob(pattern string) string {
	for _, c := range components(pattern) {
		if strings.Contains(c, "**") && c != "**" {
			return `"**" must be a whole path component (as in "a/**/b")`
		}
		if _, err := path.Match(c, ""); err != nil {
			return "bad glob: " + err.Error()
		}
	}
	return ""
}

// matchComponents reports whether the pattern's components match the
// path's exactly; "**" matches zero or more components. It runs in
// O(len(pat)*len(name)) steps, so no pattern can make it blow up.
func matchComponents(pat, name []string) bool {
	// ok[j]: pat[:i] matches name[:j], rolled over i.
	ok := make([]bool, len(name)+1)
	ok[0] = true
	for _, p := range pat {
		next := make([]bool, len(name)+1)
		if p == "**" {
			seen := false
			for j := 0; j <= len(name); j++ {
				seen = seen || ok[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(name); j++ {
				if ok[j-1] {
					m, _ := path.Match(p, name[j-1])
					next[j] = m
				}
			}
		}
		ok = next
	}
	return ok[len(name)]
}
