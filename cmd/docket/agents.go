package main

import (
	"github.com/docket-engine/docket/journal"
)

// findSession is journal.Find, except that "last" means the newest session
// a user started: a child's id sorts with its parent's, and a journal a
// crash left without records is nobody's session to go on with.
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
	for _, f := range files {
		if usersSession(f.Path) {
			return f, nil
		}
	}
	return journal.Find(home, ref)
}
