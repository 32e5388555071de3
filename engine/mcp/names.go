package mcp

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"
)

// MaxNameLen is the longest qualified tool name: the model APIs' limit.
const MaxNameLen = 64

// namePrefix and nameSep build mcp__<server>__<tool>.
const (
	namePrefix = "mcp__"
	nameSep    = "__"
)

// hashLens are the suffix lengths tried in turn when a hashed name still
// collides with another name; the last is the whole SHA-1.
func hashLens() [4]int { return [4]int{8, 12, 16, 40} }

// ToolRef names one tool as a server offers it: the provenance of a
// qualified name.
type ToolRef struct {
	Server string
	Tool   string
}

// sanitize replaces every character outside [A-Za-z0-9_] with "_", one "_"
// per character (or per byte of invalid UTF-8).
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// baseName is the qualified name before collision and length handling.
func baseName(r ToolRef) string {
	return namePrefix + sanitize(r.Server) + nameSep + sanitize(r.Tool)
}

// hashedName keeps as much of the base name as fits and appends "_" and n hex
// digits of SHA-1 over the raw server and tool names, so the result depends
// only on the tool itself, not on the order tools were listed in.
func hashedName(r ToolRef, n int) string {
	// Length-prefixing the server keeps the hashed input unambiguous.
	sum := sha1.Sum(fmt.Appendf(nil, "%d:%s%s", len(r.Server), r.Server, r.Tool))
	h := hex.EncodeToString(sum[:])[:n]
	base := baseName(r)
	keep := MaxNameLen - 1 - n
	if len(base) > keep {
		base = base[:keep]
	}
	return base + "_" + h
}

// Qualify assigns every tool its qualified name mcp__<server>__<tool>:
// characters outside [A-Za-z0-9_] become "_", and a name that collides with
// another tool's or exceeds MaxNameLen bytes gets a short hash suffix (every
// member of a collision gets one, so no tool's name depends on list order).
// Duplicate refs share one name.
func Qualify(refs []ToolRef) (map[ToolRef]string, error) {
	uniq := make(map[ToolRef]bool, len(refs))
	count := make(map[string]int, len(refs))
	for _, r := range refs {
		if uniq[r] {
			continue
		}
		uniq[r] = true
		count[baseName(r)]++
	}
	names := make(map[ToolRef]string, len(uniq))
	level := make(map[ToolRef]int, len(uniq)) // index into hashLens, -1 when unhashed
	for r := range uniq {
		b := baseName(r)
		if count[b] == 1 && len(b) <= MaxNameLen {
			names[r], level[r] = b, -1
		} else {
			names[r], level[r] = hashedName(r, hashLens()[0]), 0
		}
	}
	// A hashed name can still equal another tool's name (a server may pick a
	// tool name that looks hashed). Hash or lengthen the hash of every member
	// of such a group until all names are unique; each round lengthens at
	// least one hash, so this ends.
	for {
		owners := make(map[string][]ToolRef, len(names))
		for r, n := range names {
			owners[n] = append(owners[n], r)
		}
		changed := false
		for n, rs := range owners {
			if len(rs) < 2 {
				continue
			}
			moved := false
			for _, r := range rs {
				if lens := hashLens(); level[r]+1 < len(lens) {
					level[r]++
					names[r] = hashedName(r, lens[level[r]])
					moved = true
				}
			}
			if !moved {
				return nil, fmt.Errorf("qualified name %q: cannot make it unique for server %q tool %q", n, rs[0].Server, rs[0].Tool)
			}
			changed = true
		}
		if !changed {
			return names, nil
		}
	}
}
