package prompt

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFallbackFilenamesStandInForAMissingAgentsMD: a project directory
// without AGENTS.md gives the first fallback it has; one with AGENTS.md
// keeps it.
func TestFallbackFilenamesStandInForAMissingAgentsMD(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "pkg")
	for path, text := range map[string]string{
		filepath.Join(root, ".git", "HEAD"): "ref: x\n",
		filepath.Join(root, "CLAUDE.md"):    "root claude\n",
		filepath.Join(root, ".cursorrules"): "root cursor\n",
		filepath.Join(sub, "AGENTS.md"):     "pkg agents\n",
		filepath.Join(sub, "CLAUDE.md"):     "pkg claude\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := LoadDocsWith("", sub, 1<<20, []string{".cursorrules", "CLAUDE.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Text != "root cursor\n" || docs[1].Text != "pkg agents\n" {
		t.Fatalf("docs %+v", docs)
	}
	none, err := LoadDocs("", sub, 1<<20)
	if err != nil || len(none) != 1 || none[0].Text != "pkg agents\n" {
		t.Fatalf("without fallbacks: %+v %v", none, err)
	}
}
