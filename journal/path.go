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

// UnreadableDir is a directory under sessions/ that could not be listed: its
// journals are missing from a listing, and every other one is there.
type UnreadableDir struct {
	Path string
	Err  error
}

func (u UnreadableDir) Error() string {
	return fmt.Sprintf("cannot read session directory %s: %v", u.Path, u.Err)
}

func (u UnreadableDir) Unwrap() error { return u.Err }

// List returns every session journal under home, newest first. Session ids
// are UUIDv7, so the id order is the start-time order; ties fall back to the
// file's modification time. A directory that cannot be read does not hide
// the others: it is skipped and returned in unreadable, for the caller to
// report.
func List(home string) (files []SessionFile, unreadable []UnreadableDir, err error) {
	root := filepath.Join(home, "sessions")
	var out []SessionFile
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == root {
				return filepath.SkipDir
			}
			if os.IsNotExist(err) {
				return nil // removed while we walked: nothing of it to list
			}
			// One bad day (permissions, an I/O error) must not make every
			// other session unreachable.
			unreadable = append(unreadable, UnreadableDir{Path: p, Err: err})
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(p, Ext) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if !os.IsNotExist(err) {
				unreadable = append(unreadable, UnreadableDir{Path: p, Err: err})
			}
			return nil
		}
		out = append(out, SessionFile{ID: strings.TrimSuffix(d.Name(), Ext), Path: p, ModTime: info.ModTime()})
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, unreadable, fmt.Errorf("list sessions in %s: %w", root, err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID > out[j].ID
		}
		return out[i].ModTime.After(out[j].ModTime)
	})
	return out, unreadable, nil
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
	// Unreadable are the directories that could not be searched: the
	// session may be in one of them.
	Unreadable []UnreadableDir
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no session matches %q under %s", e.Ref, filepath.Join(e.Home, "sessions"))
	for _, u := range e.Unreadable {
		msg += "; not searched: " + u.Error()
	}
	return msg
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
	all, unreadable, err := List(home)
	if err != nil {
		return SessionFile{}, err
	}
	if ref == "last" || ref == "--last" {
		if len(all) == 0 {
			return SessionFile{}, &NotFoundError{Ref: ref, Home: home, Unreadable: unreadable}
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
		return SessionFile{}, &NotFoundError{Ref: ref, Home: home, Unreadable: unreadable}
	case 1:
		return matches[0], nil
	}
	return SessionFile{}, &AmbiguousError{Prefix: ref, Matches: matches}
}
