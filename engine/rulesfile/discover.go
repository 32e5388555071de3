package rulesfile

import (
	"os"
	"path/filepath"
	"sort"
)

// Discover lists the rules files in force, in load order:
// home/rules/*.rules sorted, then project/.docket/rules/*.rules sorted.
// Either root may be empty. Directories and unreadable folders are skipped,
// and a file already listed (by resolved path) is not listed again.
func Discover(home, project string) []string {
	var out []string
	seen := map[string]bool{}
	for _, dir := range []string{dirOf(home, "rules"), dirOf(project, ".docket", "rules")} {
		if dir == "" {
			continue
		}
		matches, err := filepath.Glob(filepath.Join(dir, "*.rules"))
		if err != nil {
			continue
		}
		sort.Strings(matches)
		for _, m := range matches {
			st, err := os.Stat(m)
			if err != nil || st.IsDir() {
				continue
			}
			key := m
			if abs, err := filepath.Abs(m); err == nil {
				key = abs
			}
			if real, err := filepath.EvalSymlinks(key); err == nil {
				key = real
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, m)
		}
	}
	return out
}

func dirOf(root string, elems ...string) string {
	if root == "" {
		return ""
	}
	return filepath.Join(append([]string{root}, elems...)...)
}
