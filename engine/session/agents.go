package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/risk"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// agentHost gives subagents their journals (files of their own in the
// sessions directory, found again by id on resume) and their models: the
// scripted model's lines for the child's name (the "agent" key), or the
// session's own model.
type agentHost struct {
	home   string
	model  model.Model
	script *script.Model // nil unless the model is a scripted one
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

func (h *agentHost) Model(name string, used engine.ScriptUse) (model.Model, error) {
	if h.script == nil {
		return h.model, nil
	}
	m := h.script.ForAgent(name)
	m.Skip(used.Responses)
	m.SkipCompactions(used.Compactions)
	return m, nil
}

// riskAssessor asks the session's model how risky a denied command is.
type riskAssessor struct{ m model.Model }

func (r riskAssessor) Assess(ctx context.Context, callID string, command []string, cwd, output string) events.RiskAssessment {
	ra := risk.AssessRisk(ctx, r.m, command, cwd, output)
	ra.CallID = callID
	return ra
}
