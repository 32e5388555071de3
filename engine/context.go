package engine

import (
	"github.com/docket-engine/docket/engine/ctxwindow"
	"github.com/docket-engine/docket/events"
)

// ContextStatus returns how full the model's context window is: the last
// response's reported usage plus an estimate of what was added since, or
// an estimate of the whole conversation (and instructions) when no usage
// was reported since the last compaction.
func (s *Session) ContextStatus() ctxwindow.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.contextStatusLocked()
}

func (s *Session) contextStatusLocked() ctxwindow.Status {
	st := ctxwindow.Status{
		Window:           ctxwindow.Window(s.cfg.Session.Model, s.cfg.Session.ContextWindow),
		AutoCompactLimit: s.cfg.Session.AutoCompactTokenLimit,
	}
	if s.usageOK && s.usageMark <= len(s.items) {
		st.Used = s.lastUsed + s.itemTokens - s.markTokens
		st.Estimated = s.usageMark < len(s.items)
		return st
	}
	st.Used = ctxwindow.EstimateText(s.cfg.Instructions) + s.itemTokens
	st.Estimated = true
	return st
}

// noteUsageLocked keeps a response's reported usage as the context size at
// the end of the conversation as it now is (the response's items added).
func (s *Session) noteUsageLocked(u events.Usage) {
	if n, ok := ctxwindow.Used(u); ok {
		s.lastUsed, s.usageMark, s.usageOK, s.markTokens = n, len(s.items), true, s.itemTokens
	}
}

// warnIfFull tells the observer, once until a compaction, that the context
// is nearly full. It is a notice only: nothing is journaled or decided.
func (s *Session) warnIfFull(turnID string) {
	s.mu.Lock()
	st := s.contextStatusLocked()
	say := st.NearLimit() && !s.warned
	if say {
		s.warned = true
	}
	s.mu.Unlock()
	if say {
		s.notify(Notice{Type: NoticeContextWarning, TurnID: turnID, Context: &st})
	}
}
