package events

import "fmt"

// RecordKind names a record type in the journal.
type RecordKind string

// Input kinds record what came from outside the engine: they are fed back
// during verify replay.
const (
	KindSessionStarted RecordKind = "session_started"
	KindUserTurn       RecordKind = "user_turn"
	KindModelResponse  RecordKind = "model_response"
	KindDecision       RecordKind = "decision"
	KindExecOutcome    RecordKind = "exec_outcome"
	KindRiskAssessment RecordKind = "risk_assessment"
	KindSessionResumed RecordKind = "session_resumed"
	KindPolicyChanged  RecordKind = "policy_changed"
	KindCompaction     RecordKind = "compaction"
	KindHookVerdict    RecordKind = "hook_verdict"
)

// Network input kinds: a person's answer about a host, and each connection
// the egress proxy allowed or refused.
const (
	KindNetworkDecision   RecordKind = "network_decision"
	KindNetworkConnection RecordKind = "network_connection"
)

// Decision kinds record what the engine concluded from its inputs: during
// verify replay they are recomputed and compared.
const (
	KindTransition        RecordKind = "transition"
	KindApprovalRequested RecordKind = "approval_requested"
	KindExecStarted       RecordKind = "exec_started"
	KindToolOutput        RecordKind = "tool_output"
	KindModelRequest      RecordKind = "model_request"
	KindGrant             RecordKind = "grant"
	KindRuleAmended       RecordKind = "rule_amended"
	KindTurnEnded         RecordKind = "turn_ended"
	KindInvalidCall       RecordKind = "invalid_call"
	KindProcessEnded      RecordKind = "process_ended"
)

// kindTable is the one list of record kinds: each kind once, with whether
// it is an input and the Go type of its body. Kinds, Known, IsInput, NewBody
// and KindOf all read it, so adding a record type is one line here.
var kindTable = [...]kindEntry{
	entry[SessionStarted](KindSessionStarted, true),
	entry[UserTurn](KindUserTurn, true),
	entry[ModelResponse](KindModelResponse, true),
	entry[Decision](KindDecision, true),
	entry[ExecOutcome](KindExecOutcome, true),
	entry[RiskAssessment](KindRiskAssessment, true),
	entry[SessionResumed](KindSessionResumed, true),
	entry[PolicyChanged](KindPolicyChanged, true),
	entry[Compaction](KindCompaction, true),
	entry[HookVerdict](KindHookVerdict, true),
	entry[NetworkDecision](KindNetworkDecision, true),
	entry[NetworkConnection](KindNetworkConnection, true),
	entry[Transition](KindTransition, false),
	entry[ApprovalRequested](KindApprovalRequested, false),
	entry[ExecStarted](KindExecStarted, false),
	entry[ToolOutput](KindToolOutput, false),
	entry[ModelRequest](KindModelRequest, false),
	entry[Grant](KindGrant, false),
	entry[RuleAmended](KindRuleAmended, false),
	entry[TurnEnded](KindTurnEnded, false),
	entry[InvalidCall](KindInvalidCall, false),
	entry[ProcessEnded](KindProcessEnded, false),
}

// kindEntry is one row of kindTable.
type kindEntry struct {
	kind  RecordKind
	input bool
	new   func() any          // a pointer to a zero body
	is    func(body any) bool // body is a T or a *T
}

func entry[T any](k RecordKind, input bool) kindEntry {
	return kindEntry{kind: k, input: input,
		new: func() any { return new(T) },
		is: func(body any) bool {
			switch body.(type) {
			case T, *T:
				return true
			}
			return false
		}}
}

func lookup(k RecordKind) (kindEntry, bool) {
	for _, e := range kindTable {
		if e.kind == k {
			return e, true
		}
	}
	return kindEntry{}, false
}

// Known reports whether k is a record kind this version understands.
func (k RecordKind) Known() bool {
	_, ok := lookup(k)
	return ok
}

// IsInput reports whether records of kind k are inputs (recorded and fed
// back by replay) rather than decisions (recomputed and compared).
func (k RecordKind) IsInput() bool {
	e, _ := lookup(k)
	return e.input
}

// UnknownKindError is returned when a record names a kind this version does
// not know, typically because a newer Docket wrote it.
type UnknownKindError struct {
	Seq  uint64
	Kind RecordKind
}

func (e *UnknownKindError) Error() string {
	return fmt.Sprintf("record %d has unknown kind %q: it was written by a newer or foreign program; upgrade docket", e.Seq, e.Kind)
}

// NewBody returns a pointer to a zero body for kind k, for decoding.
func NewBody(k RecordKind) (any, bool) {
	e, ok := lookup(k)
	if !ok {
		return nil, false
	}
	return e.new(), true
}

// KindOf returns the record kind for a body value (pointer or not).
func KindOf(body any) (RecordKind, bool) {
	for _, e := range kindTable {
		if e.is(body) {
			return e.kind, true
		}
	}
	return "", false
}
