package replay_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/replay"
)

// The journal format's compatibility promise (docs/architecture.md,
// "Journal compatibility"), held against a committed journal changed the
// ways a newer Docket's journal would differ.

const compatJournal = "../testdata/journals/causes/rules.docket"

// A record of a kind this build does not know stops the replay with an
// error naming its seq and kind: it is never skipped, because what it
// recorded could have changed a decision.
func TestReplayRefusesAnUnknownRecordKind(t *testing.T) {
	recs := readAll(t, compatJournal)
	last := recs[len(recs)-1]
	body, _ := events.EncodeBody(events.UserTurn{TurnID: "t-new"})
	recs = append(recs[:len(recs)-1], events.Record{Seq: last.Seq, Kind: "process_written", At: last.At, Body: body}, last)
	for i := range recs {
		recs[i].Seq = uint64(i + 1)
	}
	_, err := replay.Verify(context.Background(), recs, replay.Options{})
	var uk *events.UnknownKindError
	if !errors.As(err, &uk) || uk.Kind != "process_written" || uk.Seq != last.Seq {
		t.Fatalf("got %v, want *events.UnknownKindError for seq %d", err, last.Seq)
	}
	if !strings.Contains(err.Error(), "upgrade docket") {
		t.Fatalf("the error does not say what to do: %v", err)
	}
}

// A journal whose session_started carries a newer format version is
// refused before anything is replayed.
func TestReplayRefusesANewerFormat(t *testing.T) {
	recs := readAll(t, compatJournal)
	b, err := recs[0].Decode()
	if err != nil {
		t.Fatal(err)
	}
	ss := *b.(*events.SessionStarted)
	ss.Version = events.FormatVersion + 1
	if recs[0].Body, err = events.EncodeBody(ss); err != nil {
		t.Fatal(err)
	}
	_, err = replay.Verify(context.Background(), recs, replay.Options{})
	var nv *events.NewerVersionError
	if !errors.As(err, &nv) || nv.Version != events.FormatVersion+1 {
		t.Fatalf("got %v, want *events.NewerVersionError", err)
	}
}

// A field this build does not know, in a decision record of a kind it
// does know, is a divergence at that record: bodies are compared as whole
// canonical bytes, so nothing a newer Docket decided is silently dropped.
func TestReplayDivergesOnAnUnknownFieldInADecision(t *testing.T) {
	recs := readAll(t, compatJournal)
	at := -1
	for i, r := range recs {
		if r.Kind == events.KindTransition {
			at = i
			break
		}
	}
	// A newer Transition: this build's fields, in order, and one more.
	type newerTransition struct {
		events.Transition `msgpack:",inline"`
		SandboxHint       string `msgpack:"sandbox_hint,omitempty"`
	}
	var v newerTransition
	if err := events.DecodeBody(recs[at].Body, &v); err != nil {
		t.Fatal(err)
	}
	encode := func(v newerTransition) []byte {
		b, err := events.EncodeBody(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The control: without the new field the body is the same bytes, so
	// the divergence below is the field's.
	if !bytes.Equal(encode(v), recs[at].Body) {
		t.Fatal("re-encoding the transition changed its bytes; the test would prove nothing")
	}
	v.SandboxHint = "from a newer docket"
	recs[at].Body = encode(v)
	if _, err := recs[at].Decode(); err != nil {
		t.Fatalf("a known kind with an extra field must still decode: %v", err)
	}
	_, err := replay.Verify(context.Background(), recs, replay.Options{})
	var d *replay.Divergence
	if !errors.As(err, &d) || d.Seq != recs[at].Seq || d.Kind != events.KindTransition {
		t.Fatalf("got %v, want a divergence at seq %d", err, recs[at].Seq)
	}
}
