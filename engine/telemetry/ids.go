package telemetry

import (
	"context"
	"crypto/sha256"

	"go.opentelemetry.io/otel/trace"
)

// TraceID is the trace of a session: every turn of it is a root span there.
func TraceID(sessionID string) trace.TraceID {
	var id trace.TraceID
	h := sha256.Sum256([]byte("docket/trace\x00" + sessionID))
	copy(id[:], h[:])
	return id
}

// TurnSpanID is the span of the turn whose user_turn record has seq.
func TurnSpanID(sessionID string, seq uint64) trace.SpanID {
	return spanID(sessionID, "turn", seq, "")
}

// CallSpanID is the span of a tool call, by its id (unique in a session).
func CallSpanID(sessionID, callID string) trace.SpanID {
	return spanID(sessionID, "call", 0, callID)
}

func spanID(sessionID, kind string, seq uint64, callID string) trace.SpanID {
	var id trace.SpanID
	b := []byte("docket/span\x00" + sessionID + "\x00" + kind + "\x00" + callID + "\x00")
	for i := 0; i < 8; i++ {
		b = append(b, byte(seq>>(8*i)))
	}
	h := sha256.Sum256(b)
	copy(id[:], h[:])
	if !id.IsValid() { // all zero: astronomically unlikely, but invalid
		id[7] = 1
	}
	return id
}

// idKey carries the ids the next span must have.
type idKey struct{}

type wantIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// withIDs asks the id generator for these ids for the span started with ctx.
func withIDs(ctx context.Context, t trace.TraceID, s trace.SpanID) context.Context {
	return context.WithValue(ctx, idKey{}, wantIDs{t, s})
}

// idGenerator gives spans the ids withIDs put in their context (the SDK's
// way to choose ids). Every span Docket starts has them; one without would
// get the zero (invalid) ids and not be exported.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	w, _ := ctx.Value(idKey{}).(wantIDs)
	return w.trace, w.span
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	w, _ := ctx.Value(idKey{}).(wantIDs)
	return w.span
}
