package main

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// agentHost gives subagents their journals (files of their own under
// $DOCKET_HOME/sessions, found again by id on resume) and their models: the
// scripted model's lines for the child's name (the "agent" key), or the
// session's own provider.
type agentHost struct {
	home   string
	model  model.Model
	script *script.Model // nil unless the provider is the scripted one
}

var _ engine.AgentHost = (*agentHost)(nil)

func (h *agentHost) CreateLog(childID string) (engine.ChildLog, error) {
	return journal.Create(h.home, childID, time.Now())
}

func (h *agentHost) OpenLog(childID string) (engine.ChildLog, []events.Record, error) {
	sf, err := journal.Find(h.home, childID)
	if err != nil {
		var nf *journal.NotFoundError
		if errors.As(err, &nf) {
			return nil, nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
		}
		return nil, nil, err
	}
	j, err := journal.Open(sf.Path)
	var nj *journal.NotJournalError
	if errors.As(err, &nj) {
		// The parent journals a child's id before creating its journal: a
		// crash inside the creation leaves a file with nothing committed,
		// which the child's run must start in afresh (issue 27). Remake
		// refuses any file the creation could not have left.
		rj, rerr := journal.Remake(sf.Path, childID)
		if rerr != nil {
			var rnj *journal.NotJournalError
			if errors.As(rerr, &rnj) {
				return nil, nil, fmt.Errorf("%w; %s", err, rnj.Reason)
			}
			return nil, nil, errors.Join(err, rerr)
		}
		return rj, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	recs, err := j.All()
	if err != nil {
		return nil, nil, errors.Join(err, j.Close())
	}
	return j, recs, nil
}

func (h *agentHost) Model(name string, seen int) (model.Model, error) {
	if h.script == nil {
		return h.model, nil
	}
	m := h.script.ForAgent(name)
	m.Skip(seen)
	return m, nil
}

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
