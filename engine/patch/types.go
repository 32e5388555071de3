package patch

import "path/filepath"

// ChangeKind is what an operation does to its file.
type ChangeKind string

// The three operation kinds.
const (
	KindAdd    ChangeKind = "add"
	KindDelete ChangeKind = "delete"
	KindUpdate ChangeKind = "update"
)

// Patch is a parsed apply_patch text: its file operations in order.
type Patch struct {
	Ops []Op
}

// Op is one file operation of a patch, with paths as written in the patch.
type Op struct {
	Kind     ChangeKind
	Path     string
	MovePath string // Update only; empty when the file stays put
	Contents string // Add only: the new file's text
	Hunks    []Hunk // Update only, at least one
	Line     int    // 1-based line of the operation's header in the patch text
}

// Hunk is one change inside an Update: where it goes and what it replaces.
type Hunk struct {
	// Context holds the `@@ context` lines, each searched for in turn before
	// the old lines; usually a function or class header.
	Context []string
	Old     []string // lines to replace: context (' ') and removed ('-') lines
	New     []string // replacement: context (' ') and added ('+') lines
	EOF     bool     // `*** End of File`: Old must end the file
	Line    int      // 1-based line in the patch text where the hunk starts

	// keep[i] is the index in Old of the context line that New[i] repeats,
	// or -1 for an added line. Context lines are then written as the file
	// has them, so a lenient match does not rewrite their whitespace or
	// punctuation. Hunks not built by Parse lack it and write New verbatim.
	keep []int
}

// Change is a file touched by a patch operation, with absolute cleaned paths.
type Change struct {
	Kind     ChangeKind
	Path     string
	MovePath string // Update with `*** Move to:` only
}

// Paths resolves every operation's paths against workdir: relative paths are
// joined to it, absolute ones kept, all cleaned. There is one Change per
// operation, in patch order, so a path the patch touches twice appears twice.
func (p *Patch) Paths(workdir string) []Change {
	out := make([]Change, 0, len(p.Ops))
	for _, op := range p.Ops {
		c := Change{Kind: op.Kind, Path: resolve(workdir, op.Path)}
		if op.MovePath != "" {
			c.MovePath = resolve(workdir, op.MovePath)
		}
		out = append(out, c)
	}
	return out
}

func resolve(workdir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(workdir, p)
}
