package events

import "fmt"

// Kind names a record type in the journal.
type Kind string

// Input kinds record what came from outside the engine: they are fed back
// during verify replay.
const (
	KindSessionStarted Kind = "session_started"
	KindUserTurn       Kind = "user_turn"
	KindModelResponse  Kind = "model_response"
	KindDecision       Kind = "decision"
	KindExecOutcome    Kind = "exec_outcome"
	KindRiskAssessment Kind = "risk_assessment"
	KindSessionResumed Kind = "session_resumed"
)

// Decision kinds record what the engine concluded from its inputs: during
// verify replay they are recomputed and compared.
const (
	KindTransition        Kind = "transition"
	KindApprovalRequested Kind = "approval_requested"
	KindExecStarted       Kind = "exec_started"
	KindToolOutput        Kind = "tool_output"
	KindModelRequest      Kind = "model_request"
	KindGrant             Kind = "grant"
	KindRuleAmended       Kind = "rule_amended"
	KindTurnEnded         Kind = "turn_ended"
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
	entry[Transition](KindTransition, false),
	entry[ApprovalRequested](KindApprovalRequested, false),
	entry[ExecStarted](KindExecStarted, false),
	entry[ToolOutput](KindToolOutput, false),
	entry[ModelRequest](KindModelRequest, false),
	entry[Grant](KindGrant, false),
	entry[RuleAmended](KindRuleAmended, false),
	entry[TurnEnded](KindTurnEnded, false),
}

// kindEntry is one row of kindTable.
type kindEntry struct {
	kind  Kind
	input bool
	new   func() any          // a pointer to a zero body
	is    func(body any) bool // body is a T or a *T
}

func entry[T any](k Kind, input bool) kindEntry {
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

func lookup(k Kind) (kindEntry, bool) {
	for _, e := range kindTable {
		if e.kind == k {
			return e, true
		}
	}
	return kindEntry{}, false
}

// Kinds returns every known record kind, inputs first.
func Kinds() []Kind {
	out := make([]Kind, len(kindTable))
	for i, e := range kindTable {
		out[i] = e.kind
	}
	return out
}

// Known reports whether k is a record kind this version understands.
func (k Kind) Known() bool {
	_, ok := lookup(k)
	return ok
}

// IsInput reports whether records of kind k are inputs (recorded and fed
// back by replay) rather than decisions (recomputed and compared).
func (k Kind) IsInput() bool {
	e, _ := lookup(k)
	return e.input
}

// UnknownKindError is returned when a record names a kind this version does
// not know, typically because a newer Docket wrote it.
type UnknownKindError struct {
	Seq  uint64
	Kind Kind
}

func (e *UnknownKindError) Error() string {
	return fmt.Sprintf("record %d has unknown kind %q: it was written by a newer or foreign program; upgrade docket", e.Seq, e.Kind)
}

// NewBody returns a pointer to a zero body for kind k, for decoding.
func NewBody(k Kind) (any, bool) {
	e, ok := lookup(k)
	if !ok {
		return nil, false
	}
	return e.new(), true
}

// KindOf returns the record kind for a body value (pointer or not).
func KindOf(body any) (Kind, bool) {
	for _, e := range kindTable {
		if e.is(body) {
			return e.kind, true
		}
	}
	return "", false
}
