package permissions

import "strings"

// MatchGlob reports whether an absolute, cleaned path matches a rule's
// pattern exactly (not a path below what it names): "*", "?" and "[...]"
// within one component, "**" for any number of components.
func MatchGlob(pattern, path string) bool {
	return matchComponents(components(pattern), components(path))
}

// GlobRoot is the longest leading part of a pattern without glob
// characters: where an expansion starts scanning.
func GlobRoot(pattern string) string {
	var lit []string
	for _, c := range components(pattern) {
		if hasGlob(c) {
			break
		}
		lit = append(lit, c)
	}
	return "/" + strings.Join(lit, "/")
}

// HasGlob reports whether a pattern has glob characters.
func HasGlob(pattern string) bool { return hasGlob(pattern) }

// HiddenPatterns are the patterns of the profile's none rules, in order.
func (r *Resolved) HiddenPatterns() []string {
	var out []string
	for _, rule := range r.Rules {
		if rule.Access == None {
			out = append(out, rule.Pattern)
		}
	}
	return out
}
