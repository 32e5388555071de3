package main

import (
	"github.com/docket-engine/docket/journal"
)

// findSession is journal.Find, except that "last" means the newest session
// that is not a subagent's: a child's id sorts with its parent's, and the
// session a user means by "last" is the one they started.
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
		if !isSubagent(f.Path) {
			return f, nil
		}
	}
	return journal.Find(home, ref)
}
