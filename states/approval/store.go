package approval

import (
	"slices"
	"sync"
)

// Store is the session's approval cache: the set of keys granted
// approved_for_session. The zero value is an empty store.
type Store struct {
	mu      sync.RWMutex
	granted map[string]struct{}
}

// NewStore returns a store holding keys, e.g. rebuilt from journaled grants.
func NewStore(keys ...string) *Store {
	s := &Store{}
	s.Grant(keys...)
	return s
}

// AllGranted reports whether every key was granted; false for no keys.
func (s *Store) AllGranted(keys []string) bool {
	if len(keys) == 0 {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, k := range keys {
		if _, ok := s.granted[k]; !ok {
			return false
		}
	}
	return true
}

// Grant records each key separately, as an approved_for_session answer does.
// It returns the keys that were not granted before, sorted, for the journal.
func (s *Store) Grant(keys ...string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.granted == nil {
		s.granted = map[string]struct{}{}
	}
	var added []string
	for _, k := range keys {
		if _, ok := s.granted[k]; !ok {
			s.granted[k] = struct{}{}
			added = append(added, k)
		}
	}
	slices.Sort(added)
	return added
}

// Keys returns every granted key, sorted.
func (s *Store) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.granted))
	for k := range s.granted {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Len returns the number of granted keys.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.granted)
}
