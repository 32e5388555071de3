package journal

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Ext is the file extension of a session journal.
const Ext = ".docket"

// SessionPath returns where the journal of session id, started at t, lives.
func SessionPath(home, id string, t time.Time) string {
	t = t.UTC()
	return filepath.Join(home, "sessions", fmt.Sprintf("%04d", t.Year()), fmt.Sprintf("%02d", t.Month()), fmt.Sprintf("%02d", t.Day()), id+Ext)
}

// SessionFile is a journal found on disk.
type SessionFile struct {
	ID      string
	Path    string
	ModTime time.Time
}

// List returns every session journal under home, newest first. Session ids
// are UUIDv7, so the id order is the start-time order; ties fall back to the
// file's modification time.
func List(home string) ([]SessionFile, error) {
	root := filepath.Join(home, "sessions")
	var out []SessionFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == root {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, Ext) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, SessionFile{ID: strings.TrimSuffix(d.Name(), Ext), Path: p, ModTime: info.ModTime()})
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("list sessions in %s: %w", root, err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID > out[j].ID
		}
		return out[i].ModTime.After(out[j].ModTime)
	})
	return out, nil
}

// AmbiguousError is returned when a session prefix matches several sessions.
type AmbiguousError struct {
	Prefix  string
	Matches []SessionFile
}

func (e *AmbiguousError) Error() string {
	ids := make([]string, len(e.Matches))
	for i, m := range e.Matches {
		ids[i] = m.ID
	}
	return fmt.Sprintf("session prefix %q matches %d sessions: %s", e.Prefix, len(e.Matches), strings.Join(ids, ", "))
}

// NotFoundError is returned when no session matches.
type NotFoundError struct {
	Ref  string
	Home string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no session matches %q under %s", e.Ref, filepath.Join(e.Home, "sessions"))
}

// Find resolves a session reference: "last", a full id, a unique id prefix,
// or a path to a journal file.
func Find(home, ref string) (SessionFile, error) {
	if strings.HasSuffix(ref, Ext) || strings.ContainsRune(ref, os.PathSeparator) {
		info, err := os.Stat(ref)
		if err != nil {
			return SessionFile{}, fmt.Errorf("journal %s: %w", ref, err)
		}
		return SessionFile{ID: strings.TrimSuffix(filepath.Base(ref), Ext), Path: ref, ModTime: info.ModTime()}, nil
	}
	all, err := List(home)
	if err != nil {
		return SessionFile{}, err
	}
	if ref == "last" || ref == "--last" {
		if len(all) == 0 {
			return SessionFile{}, &NotFoundError{Ref: ref, Home: home}
		}
		return all[0], nil
	}
	var matches []SessionFile
	for _, s := range all {
		if s.ID == ref {
			return s, nil
		}
		if strings.HasPrefix(s.ID, ref) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		return SessionFile{}, &NotFoundError{Ref: ref, Home: home}
	case 1:
		return matches[0], nil
	}
	return SessionFile{}, &AmbiguousError{Prefix: ref, Matches: matches}
}
