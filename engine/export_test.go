package engine

import (
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
)

// Items returns a copy of the conversation so far, for the tests to check
// what the model was told.
func (s *Session) Items() []events.Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]events.Item(nil), s.items...)
}

// BridgeFor is bridgeFor, for the tests of the session's egress proxy.
func (s *Session) BridgeFor(turnID string, start events.ExecStarted) sandbox.Bridge {
	return s.bridgeFor(turnID, start)
}
