package events

// ParentLink ties a child session (a subagent) to the call of its parent
// session that started it. It is recorded in the child's session_started, so
// the child's journal names its parent, and it carries the session grants the
// child inherited, so a restored or replayed child decides as it did.
type ParentLink struct {
	SessionID string `msgpack:"session_id" json:"session_id"`
	CallID    string `msgpack:"call_id" json:"call_id"`
	// Name is the child's name, as the model gave it (or its call id).
	Name string `msgpack:"name" json:"name"`
	// Depth is 1 for a child of a top-level session, 2 for its child, ...
	Depth int `msgpack:"depth" json:"depth"`
	// Grants are the approval keys the parent had granted for the session
	// when the child started.
	Grants []string `msgpack:"grants,omitempty" json:"grants,omitempty"`
	// AllowRules are the prefix rules the user saved during the parent's
	// session before the child started (the child's rule sources are the
	// ones recorded at the parent's start).
	AllowRules [][]string `msgpack:"allow_rules,omitempty" json:"allow_rules,omitempty"`
}

// AgentSpawn is what a spawn_agent call starts, recorded in its exec_started
// (write-ahead): the child's id, its name, its prompt and the policy it runs
// under (the parent's, narrowed by the call's overrides). The call's
// exec_started Sandbox is the child's sandbox plan.
type AgentSpawn struct {
	ChildID string        `msgpack:"child_id" json:"child_id"`
	Name    string        `msgpack:"name" json:"name"`
	Prompt  string        `msgpack:"prompt" json:"prompt"`
	Depth   int           `msgpack:"depth" json:"depth"`
	Config  SessionConfig `msgpack:"config" json:"config"`
}

// AgentResult is how a child session ended, recorded in the exec_outcome of
// the spawn_agent call that started it: the child's id and turn status, and
// every approval decision the parent's approver gave the child's calls, so
// the parent's journal references them (the decisions themselves are
// journaled in the child).
type AgentResult struct {
	ChildID   string           `msgpack:"child_id" json:"child_id"`
	Status    TurnStatus       `msgpack:"status" json:"status"`
	Decisions []RoutedDecision `msgpack:"decisions,omitempty" json:"decisions,omitempty"`
}

// RoutedDecision is one answer the parent's approver gave a child's call.
type RoutedDecision struct {
	CallID    string         `msgpack:"call_id" json:"call_id"`
	RequestID string         `msgpack:"request_id" json:"request_id"`
	Decision  ReviewDecision `msgpack:"decision" json:"decision"`
	Source    DecisionSource `msgpack:"source" json:"source"`
}
