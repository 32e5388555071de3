package attach

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// IndexLimits bound the walk over the workspace.
type IndexLimits struct {
	MaxFiles int // files kept; the walk stops there
	MaxDirs  int // directories visited
	MaxDepth int // directory levels below the root
}

// DefaultIndexLimits walk at most 50,000 files, 20,000 directories and 32
// levels: a large monorepo is indexed in part (Index.Truncated says so)
// rather than stalling the prompt.
func DefaultIndexLimits() IndexLimits {
	return IndexLimits{MaxFiles: 50_000, MaxDirs: 20_000, MaxDepth: 32}
}

// Index is the workspace's files, for completing @ references.
type Index struct {
	files []string // slash-separated, relative to the root, sorted
	lower []string // files in lower case, for matching
	// Truncated is set when a limit stopped the walk.
	Truncated bool
}

// errStop ends a walk that reached a limit.
var errStop = errors.New("limit reached")

// NewIndex walks the workspace under root, skipping .git and whatever the
// root's .git/info/exclude and every directory's .gitignore exclude (as
// git does: a later, deeper pattern wins; a directory excluded is not
// entered). Symlinks are listed, not followed.
func NewIndex(root string, lim IndexLimits) (*Index, error) {
	ix := &Index{}
	patterns := readPatterns(filepath.Join(root, ".git", "info", "exclude"), nil)
	dirs := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable entry: leave it out
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			patterns = append(patterns, readPatterns(filepath.Join(p, ".gitignore"), nil)...)
			return nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.IsDir() {
			if d.Name() == ".git" || ignored(patterns, parts, true) {
				return filepath.SkipDir
			}
			dirs++
			if (lim.MaxDirs > 0 && dirs > lim.MaxDirs) || (lim.MaxDepth > 0 && len(parts) > lim.MaxDepth) {
				ix.Truncated = true
				if lim.MaxDirs > 0 && dirs > lim.MaxDirs {
					return errStop
				}
				return filepath.SkipDir
			}
			patterns = append(patterns, readPatterns(filepath.Join(p, ".gitignore"), parts)...)
			return nil
		}
		if ignored(patterns, parts, false) {
			return nil
		}
		if lim.MaxFiles > 0 && len(ix.files) >= lim.MaxFiles {
			ix.Truncated = true
			return errStop
		}
		ix.files = append(ix.files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	sort.Strings(ix.files)
	ix.lowerCase()
	return ix, nil
}

func (ix *Index) lowerCase() {
	ix.lower = make([]string, len(ix.files))
	for i, f := range ix.files {
		ix.lower[i] = strings.ToLower(f)
	}
}

// NewIndexOf is an Index over a given list of paths (for tests and for a
// caller with its own file list).
func NewIndexOf(paths []string) *Index {
	files := append([]string(nil), paths...)
	sort.Strings(files)
	ix := &Index{files: files}
	ix.lowerCase()
	return ix
}

// Files returns the indexed paths, sorted.
func (ix *Index) Files() []string { return append([]string(nil), ix.files...) }

// maxPatternLines bounds what one ignore file contributes.
const maxPatternLines = 10_000

// readPatterns reads one ignore file's patterns, for the directory domain.
func readPatterns(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		return nil // no such file is the common case
	}
	defer func() { _ = f.Close() }() // read-only
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan() && n < maxPatternLines; n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// ignored matches as git does: the last pattern that matches decides.
func ignored(ps []gitignore.Pattern, path []string, isDir bool) bool {
	for i := len(ps) - 1; i >= 0; i-- {
		if m := ps[i].Match(path, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}
