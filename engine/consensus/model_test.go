package consensus_test

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/consensus"
	"github.com/docket-engine/docket/engine/session"
)

// TestDocketsOwnResponsesAreNotTheModels: a resumed agents run skips a
// scripted model past the responses it gave, and session.Resume tells
// Docket's own by their prefix; an id without it would cost a script line.
func TestDocketsOwnResponsesAreNotTheModels(t *testing.T) {
	for _, id := range []string{consensus.DispatchID, consensus.NoQuorumID} {
		if !strings.HasPrefix(id, session.OwnResponsePrefix) {
			t.Errorf("response id %q does not begin with session.OwnResponsePrefix %q", id, session.OwnResponsePrefix)
		}
	}
}
