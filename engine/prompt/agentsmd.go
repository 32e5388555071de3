package prompt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/docket-engine/docket/sandbox/stubs"
)

// DocFileName is the instruction file looked for in each directory.
const DocFileName = "AGENTS.md"

// DefaultProjectDocMaxBytes caps the AGENTS.md text when config says nothing.
const DefaultProjectDocMaxBytes = 32 * 1024

// Doc is one AGENTS.md file as it goes into the instructions.
type Doc struct {
	Path      string
	Text      string
	Truncated bool // cut to stay within the byte cap
}

// LoadDocs reads $home/AGENTS.md, then AGENTS.md in every directory from the
// project root (the nearest ancestor of cwd holding .git, else the
// filesystem root) down to cwd, in that order, keeping at most maxBytes in
// total; once the cap is hit the rest is dropped. maxBytes <= 0 loads
// nothing. Missing files are skipped; unreadable ones are errors naming them.
func LoadDocs(home, cwd string, maxBytes int64) ([]Doc, error) {
	return LoadDocsWith(home, cwd, maxBytes, nil)
}

// LoadDocsWith is LoadDocs where a project directory without AGENTS.md
// gives the first of fallbacks it has (CLAUDE.md, ...), as Codex's
// project_doc_fallback_filenames.
func LoadDocsWith(home, cwd string, maxBytes int64, fallbacks []string) ([]Doc, error) {
	if maxBytes <= 0 {
		return nil, nil
	}
	var paths []string
	if home != "" {
		paths = append(paths, filepath.Join(home, DocFileName))
	}
	dirs, err := projectDirs(cwd)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		p := docIn(d, fallbacks)
		if len(paths) > 0 && paths[0] == p {
			continue // home is inside the project: read it once
		}
		paths = append(paths, p)
	}
	var docs []Doc
	left := maxBytes
	for _, p := range paths {
		if left <= 0 {
			break
		}
		text, truncated, err := readCapped(p, left)
		if err != nil {
			return nil, err
		}
		if text == "" && !truncated {
			continue
		}
		left -= int64(len(text))
		if truncated {
			left = 0
		}
		docs = append(docs, Doc{Path: p, Text: text, Truncated: truncated})
	}
	return docs, nil
}

// docIn is the instruction file of dir: AGENTS.md, else the first of
// fallbacks that is a regular file, else AGENTS.md (which reads as none).
func docIn(dir string, fallbacks []string) string {
	p := filepath.Join(dir, DocFileName)
	if _, err := os.Lstat(p); err == nil {
		return p
	}
	for _, name := range fallbacks {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(dir, name)
		}
	}
	return p
}

// projectDirs lists the directories from the project root down to cwd.
func projectDirs(cwd string) ([]string, error) {
	if cwd == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("working directory %q: %w", cwd, err)
	}
	var chain []string // cwd first, up to the root
	for d := abs; ; {
		chain = append(chain, d)
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil && !stubs.LooksLikeStub(filepath.Join(d, ".git"), fi) {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain, nil
}

// readCapped reads at most max bytes of a regular file, cut back to a whole
// UTF-8 character; a missing file (or a directory of that name) reads as "".
func readCapped(path string, max int64) (string, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // read-only: nothing to lose
	fi, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", false, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) <= max {
		return string(data), false, nil
	}
	return string(trimPartialRune(data[:max])), true, nil
}

// trimPartialRune drops a multi-byte character cut off at the end.
func trimPartialRune(b []byte) []byte {
	for j := 1; j <= utf8.UTFMax && j <= len(b); j++ {
		if utf8.RuneStart(b[len(b)-j]) {
			if !utf8.FullRune(b[len(b)-j:]) {
				return b[:len(b)-j]
			}
			break
		}
	}
	return b
}
