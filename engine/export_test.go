package engine

import "github.com/docket-engine/docket/events"

// Items returns a copy of the conversation so far, for the tests to check
// what the model was told.
func (s *Session) Items() []events.Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]events.Item(nil), s.items...)
}
