package patch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkParseCompute parses and verifies a 50-hunk patch against a real
// 1,000-line file, the way the helper does before writing.
func BenchmarkParseCompute(b *testing.B) {
	dir := b.TempDir()
	var file, patch strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&file, "\tvalue%d := compute(%d) // line %d\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(file.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	patch.WriteString("*** Begin Patch\n*** Update File: big.go\n")
	for h := range 50 {
		i := h*20 + 5
		fmt.Fprintf(&patch, "@@\n \tvalue%d := compute(%d) // line %d\n \tvalue%d := compute(%d) // line %d\n-\tvalue%d := compute(%d) // line %d\n+\tvalue%d := computeFast(%d) // line %d\n \tvalue%d := compute(%d) // line %d\n",
			i-2, i-2, i-2, i-1, i-1, i-1, i, i, i, i, i, i, i+1, i+1, i+1)
	}
	patch.WriteString("*** End Patch\n")
	text := patch.String()
	r, err := Compute(mustParse(b, text), dir, OSFS{})
	if err != nil || strings.Count(string(r.Changes[0].New), "computeFast") != 50 {
		b.Fatalf("the benchmark patch does not apply all 50 hunks: %v", err)
	}
	b.SetBytes(int64(file.Len()))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Parse(text)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Compute(p, dir, OSFS{})
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Changes) != 1 {
			b.Fatal("no change")
		}
	}
}
