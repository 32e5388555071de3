package main

import (
	"github.com/docket-engine/docket/journal"
)

// findSession is journal.Find, except that "last" means the newest session
// a user started: a child's id sorts with its parent's, and a journal a
// crash left without records (a subagent's child, say) is taken only when
// there is no other, so that its resume can say nothing ran.
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
	var empty []journal.SessionFile
	for _, f := range files {
		switch kindOf(f.Path) {
		case usersJournal:
			return f, nil
		case emptyJournal:
			empty = append(empty, f)
		}
	}
	if len(empty) > 0 {
		return empty[0], nil // its resume says nothing ran
	}
	return journal.Find(home, ref)
}
