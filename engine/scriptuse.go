package engine

import (
	"strings"

	"github.com/docket-engine/docket/events"
)

// OwnResponsePrefix starts the id of a model response Docket gave itself
// (docket agents run's dispatch): no model answered it, so a scripted model
// is not skipped past it.
const OwnResponsePrefix = "docket-agents-"

// ScriptUse is what a session's journal says it already took from a
// scripted model: a resumed session, or a resumed subagent, goes on from
// the next lines of each kind.
type ScriptUse struct {
	// Responses are the model's responses, not Docket's own
	// (OwnResponsePrefix).
	Responses int
	// Compactions are the compactions, each of which took a compact line.
	Compactions int
}

// ScriptLinesUsed is the one rule for what a journal's records took from a
// scripted model, for a session and a subagent alike.
func ScriptLinesUsed(recs []events.Record) ScriptUse {
	var u ScriptUse
	for _, r := range recs {
		switch r.Kind {
		case events.KindModelResponse:
			if !ownResponse(r) {
				u.Responses++
			}
		case events.KindCompaction:
			u.Compactions++
		}
	}
	return u
}

func ownResponse(r events.Record) bool {
	body, err := r.Decode()
	if err != nil {
		return false
	}
	mr, ok := body.(*events.ModelResponse)
	return ok && strings.HasPrefix(mr.ResponseID, OwnResponsePrefix)
}
