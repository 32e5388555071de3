package main

import (
	"github.com/docket-engine/docket/journal"
)

// findSession is journal.Find, except that "last" means the newest session
// a user started (newestSession).
func findSession(home, ref string) (journal.SessionFile, error) {
	if ref != "last" && ref != "--last" {
		return journal.Find(home, ref)
	}
	// A directory that cannot be read is named by Find's error when
	// nothing else matches.
	files, _, err := journal.List(home)
	if err != nil {
		return journal.SessionFile{}, err
	}
	if f, ok := newestSession(files, nil, true); ok {
		return f, nil
	}
	return journal.Find(home, ref)
}

// newestSession is what "last" means, for every command that takes it:
// of files (newest first) the newest session a user began that match
// accepts (nil: any), else, when empties, the newest journal a crash left
// without records (its resume says nothing ran). A subagent's journal is
// never taken: a child's id sorts with its parent's, and it is resumed
// with its parent, never on its own.
func newestSession(files []journal.SessionFile, match func(journal.SessionFile) bool, empties bool) (journal.SessionFile, bool) {
	var empty []journal.SessionFile
	for _, f := range files {
		switch kindOf(f.Path) {
		case usersJournal:
			if match == nil || match(f) {
				return f, true
			}
		case emptyJournal:
			if empties {
				empty = append(empty, f)
			}
		}
	}
	if len(empty) > 0 {
		return empty[0], true
	}
	return journal.SessionFile{}, false
}
