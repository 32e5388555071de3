package attach

import (
	"slices"
	"testing"
)

// FuzzIndexGitignore indexes a tree whose .gitignore holds any text (a
// cloned repository's): the index is built, never lists .git's contents or
// the .gitignore's own absence, and a file no pattern can name (its name is
// not in the text) stays listed.
func FuzzIndexGitignore(f *testing.F) {
	f.Add("*.log\nbuild/\n/secret.txt\n!keep.log\n")
	f.Add("\\\n[\n**/\n!\n/\n**\n")
	f.Add("a/**/b\n[a-\n\\!x\n#c\n   \n")
	f.Fuzz(func(t *testing.T, gitignore string) {
		root := tree(t, map[string]string{
			".gitignore": gitignore,
			".git/HEAD":  "ref: refs/heads/main\n",
			"src/a.go":   "package a\n",
			"zqxjv.txt":  "x",
		})
		ix, err := NewIndex(root, DefaultIndexLimits())
		if err != nil {
			t.Fatal(err)
		}
		files := ix.Files()
		if slices.Contains(files, ".git/HEAD") {
			t.Fatalf("indexed .git: %q", files)
		}
		if !containsAny(gitignore, "zqxjv.t*?[\\") && !slices.Contains(files, "zqxjv.txt") {
			t.Fatalf("a file no pattern names is missing: %q", files)
		}
	})
}

// containsAny reports whether s has one of the bytes of chars: a pattern
// naming zqxjv.txt needs one of its letters, a wildcard, a class or an
// escape.
func containsAny(s, chars string) bool {
	for i := range len(s) {
		for j := range len(chars) {
			if s[i] == chars[j] {
				return true
			}
		}
	}
	return false
}
