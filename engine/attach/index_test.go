package attach

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestIndexRespectsGitignore(t *testing.T) {
	root := tree(t, map[string]string{
		".gitignore":          "*.log\nbuild/\n/secret.txt\n!keep.log\n",
		".git/info/exclude":   "local-only.txt\n",
		".git/HEAD":           "ref: refs/heads/main\n",
		"main.go":             "",
		"app.log":             "",
		"keep.log":            "",
		"secret.txt":          "",
		"local-only.txt":      "",
		"build/out.bin":       "",
		"src/secret.txt":      "", // /secret.txt is anchored to the root
		"src/.gitignore":      "gen_*.go\n",
		"src/gen_x.go":        "",
		"src/x.go":            "",
		"node_modules/a/b.js": "",
		"other/gen_y.go":      "", // src's pattern does not reach here
	})
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\nbuild/\n/secret.txt\n!keep.log\nnode_modules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := NewIndex(root, DefaultIndexLimits())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "keep.log", "main.go", "other/gen_y.go", "src/.gitignore", "src/secret.txt", "src/x.go"}
	if got := ix.Files(); !reflect.DeepEqual(got, want) || ix.Truncated {
		t.Fatalf("files %q (truncated %v), want %q", got, ix.Truncated, want)
	}
}

func TestIndexIsBounded(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("d%02d/f.txt", i)] = ""
	}
	files["a/b/c/d/e/deep.txt"] = ""
	root := tree(t, files)
	for _, tc := range []struct {
		name string
		lim  IndexLimits
		max  int
	}{
		{"file limit", IndexLimits{MaxFiles: 10}, 10},
		{"directory limit", IndexLimits{MaxDirs: 5}, 5},
		{"depth limit", IndexLimits{MaxDepth: 2}, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := NewIndex(root, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(ix.Files()); n > tc.max || !ix.Truncated {
				t.Fatalf("%d files (truncated %v), want at most %d and truncated", n, ix.Truncated, tc.max)
			}
		})
	}
}

func TestCompleteRanks(t *testing.T) {
	ix := NewIndexOf([]string{
		"README.md", "cmd/docket/main.go", "engine/session.go", "engine/session_test.go",
		"engine/model/script/script.go", "docs/sandbox.md", "sandbox/seccomp.go", "events/sample_test.go", "İİİİİİİİİİİİİİİİİİİİİİİ/x",
	})
	for _, tc := range []struct {
		query string
		first string
		none  bool
	}{
		{query: "session", first: "engine/session.go"},
		{query: "sess_t", first: "engine/session_test.go"},
		{query: "scrpt", first: "engine/model/script/script.go"},
		{query: "SANDBOX", first: "docs/sandbox.md"},
		{query: "cdm", first: "cmd/docket/main.go"},
		{query: "zzz", none: true},
		{query: "", first: "README.md"},
		{query: "i", first: "İİİİİİİİİİİİİİİİİİİİİİİ/x"}, // İ lower-cases to two runes: no panic
	} {
		got := ix.Complete(tc.query, 3)
		if tc.none {
			if len(got) != 0 {
				t.Errorf("Complete(%q) = %+v, want none", tc.query, got)
			}
			continue
		}
		if len(got) == 0 || got[0].Path != tc.first {
			t.Errorf("Complete(%q) = %+v, want %s first", tc.query, got, tc.first)
			continue
		}
		if len(got) > 3 {
			t.Errorf("Complete(%q) returned %d, more than the limit", tc.query, len(got))
		}
		for _, p := range got[0].Positions {
			if p < 0 || p >= len(got[0].Path) {
				t.Errorf("Complete(%q) position %d outside %q", tc.query, p, got[0].Path)
			}
		}
	}
}

// BenchmarkComplete ranks a query over 50,000 paths, the default index
// bound: the cost of one keystroke in the completion popup.
func BenchmarkComplete(b *testing.B) {
	paths := make([]string, 0, 50_000)
	for i := range 50_000 {
		paths = append(paths, fmt.Sprintf("pkg%03d/sub%02d/file_%05d.go", i%500, i%37, i))
	}
	ix := NewIndexOf(paths)
	b.ResetTimer()
	for b.Loop() {
		if len(ix.Complete("sub1file9", 10)) == 0 {
			b.Fatal("no match")
		}
	}
}

// BenchmarkNewIndex walks a workspace of 5,000 files in 250 directories,
// each with a .gitignore: the cost of opening the completion popup.
func BenchmarkNewIndex(b *testing.B) {
	root := b.TempDir()
	for d := range 250 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		for f := range 19 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		ix, err := NewIndex(root, DefaultIndexLimits())
		if err != nil || len(ix.Files()) != 5000 {
			b.Fatalf("%v, %d files", err, len(ix.Files()))
		}
	}
}
