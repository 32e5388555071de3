package permissions

import (
	"path"
	"strings"
)

// Verdict is the access a path gets and the rule that gave it (nil when
// no rule covers the path, which hides it).
type Verdict struct {
	Access Access
	Rule   *Rule
}

// Access returns the access of an absolute path: the rule naming its
// nearest ancestor (or itself) wins, a literal beats a glob at the same
// depth, and the strictest access breaks what remains. A path no rule
// covers is hidden (None). The path is cleaned first; a relative path is
// hidden.
func (r *Resolved) Access(p string) Verdict {
	if !strings.HasPrefix(p, "/") {
		return Verdict{Access: None}
	}
	name := components(path.Clean(p))
	best, bestDepth := -1, -1
	for i := range r.Rules {
		d := r.Rules[i].coverDepth(name)
		if d < 0 {
			continue
		}
		if best < 0 || d > bestDepth || d == bestDepth && r.Rules[i].beats(&r.Rules[best]) {
			best, bestDepth = i, d
		}
	}
	if best < 0 {
		return Verdict{Access: None}
	}
	return Verdict{Access: r.Rules[best].Access, Rule: &r.Rules[best]}
}

// beats breaks a tie between two rules covering a path at the same depth.
func (x *Rule) beats(y *Rule) bool {
	if x.Glob != y.Glob {
		return !x.Glob
	}
	return x.Access.strictness() < y.Access.strictness()
}

// coverDepth returns how many leading components of name the rule names
// (the depth of the ancestor it covers, name itself included), or -1
// when it covers nothing of name. A rule covers the whole tree below what
// it names.
func (x *Rule) coverDepth(name []string) int {
	pat := components(x.Pattern)
	if !x.Glob {
		if len(pat) > len(name) {
			return -1
		}
		for i, c := range pat {
			if name[i] != c {
				return -1
			}
		}
		return len(pat)
	}
	for k := len(name); k >= 0; k-- {
		if matchComponents(pat, name[:k]) {
			return k
		}
	}
	return -1
}
