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

var kindInfo = [...]struct {
	kind  Kind
	input bool
}{
	{KindSessionStarted, true},
	{KindUserTurn, true},
	{KindModelResponse, true},
	{KindDecision, true},
	{KindExecOutcome, true},
	{KindRiskAssessment, true},
	{KindSessionResumed, true},
	{KindTransition, false},
	{KindApprovalRequested, false},
	{KindExecStarted, false},
	{KindToolOutput, false},
	{KindModelRequest, false},
	{KindGrant, false},
	{KindRuleAmended, false},
	{KindTurnEnded, false},
}

// Kinds returns every known record kind, inputs first.
func Kinds() []Kind {
	out := make([]Kind, len(kindInfo))
	for i, k := range kindInfo {
		out[i] = k.kind
	}
	return out
}

// Known reports whether k is a record kind this version understands.
func (k Kind) Known() bool {
	for _, i := range kindInfo {
		if i.kind == k {
			return true
		}
	}
	return false
}

// IsInput reports whether records of kind k are inputs (recorded and fed
// back by replay) rather than decisions (recomputed and compared).
func (k Kind) IsInput() bool {
	for _, i := range kindInfo {
		if i.kind == k {
			return i.input
		}
	}
	return false
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
	switch k {
	case KindSessionStarted:
		return &SessionStarted{}, true
	case KindUserTurn:
		return &UserTurn{}, true
	case KindModelResponse:
		return &ModelResponse{}, true
	case KindDecision:
		return &Decision{}, true
	case KindExecOutcome:
		return &ExecOutcome{}, true
	case KindRiskAssessment:
		return &RiskAssessment{}, true
	case KindSessionResumed:
		return &SessionResumed{}, true
	case KindTransition:
		return &Transition{}, true
	case KindApprovalRequested:
		return &ApprovalRequested{}, true
	case KindExecStarted:
		return &ExecStarted{}, true
	case KindToolOutput:
		return &ToolOutput{}, true
	case KindModelRequest:
		return &ModelRequest{}, true
	case KindGrant:
		return &Grant{}, true
	case KindRuleAmended:
		return &RuleAmended{}, true
	case KindTurnEnded:
		return &TurnEnded{}, true
	}
	return nil, false
}

// KindOf returns the record kind for a body value (pointer or not).
func KindOf(body any) (Kind, bool) {
	switch body.(type) {
	case SessionStarted, *SessionStarted:
		return KindSessionStarted, true
	case UserTurn, *UserTurn:
		return KindUserTurn, true
	case ModelResponse, *ModelResponse:
		return KindModelResponse, true
	case Decision, *Decision:
		return KindDecision, true
	case ExecOutcome, *ExecOutcome:
		return KindExecOutcome, true
	case RiskAssessment, *RiskAssessment:
		return KindRiskAssessment, true
	case SessionResumed, *SessionResumed:
		return KindSessionResumed, true
	case Transition, *Transition:
		return KindTransition, true
	case ApprovalRequested, *ApprovalRequested:
		return KindApprovalRequested, true
	case ExecStarted, *ExecStarted:
		return KindExecStarted, true
	case ToolOutput, *ToolOutput:
		return KindToolOutput, true
	case ModelRequest, *ModelRequest:
		return KindModelRequest, true
	case Grant, *Grant:
		return KindGrant, true
	case RuleAmended, *RuleAmended:
		return KindRuleAmended, true
	case TurnEnded, *TurnEnded:
		return KindTurnEnded, true
	}
	return "", false
}
