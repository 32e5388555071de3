package patch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addGoldenSeeds seeds a fuzz target with every golden patch.
func addGoldenSeeds(f *testing.F, add func(text string)) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "cases", "*", "patch.txt"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		add(string(data))
	}
}

// FuzzParse checks that Parse never panics, that it either returns a patch
// with operations or a *ParseError naming a line of the text, and that every
// Update it returns has hunks.
func FuzzParse(f *testing.F) {
	addGoldenSeeds(f, func(s string) { f.Add(s) })
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Line > strings.Count(text, "\n")+2 {
				t.Fatalf("error %v (%T) does not name a line of the text", err, err)
			}
			return
		}
		if len(p.Ops) == 0 {
			t.Fatal("parsed a patch without operations")
		}
		for _, op := range p.Ops {
			if op.Path == "" || (op.Kind == KindUpdate && len(op.Hunks) == 0) {
				t.Fatalf("bad op %+v", op)
			}
		}
		_ = p.Paths("/w")
	})
}

// FuzzCompute checks that Compute never panics on any patch against any
// file content, and that what it returns is consistent: typed errors, and
// one change per operation with contents that end with a newline.
func FuzzCompute(f *testing.F) {
	addGoldenSeeds(f, func(s string) { f.Add(s, "line1\nline2\nfoo\nbar\n") })
	f.Add("*** Begin Patch\n*** Update File: f.txt\n@@ x\n-x\n*** End of File\n*** End Patch", "x\r\nx\r\n")
	f.Fuzz(func(t *testing.T, text, content string) {
		p, err := Parse(text)
		if err != nil {
			return
		}
		files := memFS{}
		for _, c := range p.Paths("/w") {
			files[c.Path] = content
		}
		delete(files, "/w")
		r, err := Compute(p, "/w", files)
		if err != nil {
			var fe *FileError
			var he *HunkError
			if !errors.As(err, &fe) && !errors.As(err, &he) {
				t.Fatalf("untyped error %v (%T)", err, err)
			}
			return
		}
		if len(r.Changes) != len(p.Ops) {
			t.Fatalf("%d changes for %d operations", len(r.Changes), len(p.Ops))
		}
		for _, c := range r.Changes {
			if c.Kind == KindUpdate && len(c.New) > 0 && c.New[len(c.New)-1] != '\n' {
				t.Fatalf("updated %s does not end with a newline: %q", c.Path, c.New)
			}
		}
	})
}
