package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
)

// headerLine matches a TOML table header, [a.b] or [[a.b]].
var headerLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$`)
})

// TableHeaderKey returns the dotted key of line if line is a TOML table
// header ([a.b] or [[a.b]]), split into its parts; ok is false otherwise.
// The line edits of the config file (docket mcp add/remove, a domain
// allowed always) find their tables with it.
func TableHeaderKey(line string) (key []string, ok bool) {
	m := headerLine().FindStringSubmatch(line)
	if m == nil {
		return nil, false
	}
	return SplitKey(m[1]), true
}

// SplitKey splits a TOML dotted key into its parts, honouring quotes:
// `a."b.c"` is a and b.c.
func SplitKey(s string) []string {
	var parts []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
		case r == '.':
			parts = append(parts, cur.String())
			cur.Reset()
		case r == ' ' || r == '\t':
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, cur.String())
}

// LockFile takes an exclusive lock on path+".lock" for an edit of the
// file at path, so that two Docket processes editing the same config
// (docket mcp add beside a chat's "allow always") do not lose one's
// change; unlock releases it.
func LockFile(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		_ = lock.Close() // the lock failed; that error is the one to report
		return nil, fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	// Closing the file releases the lock.
	return func() { _ = lock.Close() }, nil
}

// WriteFileAtomic replaces the file at path with text through a synced
// temporary file and a rename, so that a reader never sees half a config;
// the file keeps its mode (0600 when it is new).
func WriteFileAtomic(path, text string) error {
	mode := os.FileMode(0o600)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config.toml.*")
	if err != nil {
		return err
	}
	// After the rename there is nothing left to remove.
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.WriteString(text); err != nil {
		_ = tmp.Close() // the write already failed; that error is the one to report
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close() // the write already failed; that error is the one to report
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close() // the write already failed; that error is the one to report
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
