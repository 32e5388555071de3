package events

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// roundTrip pushes body through the whole path a journal record takes and
// checks that nothing changes on the way back. With sameValue false only the
// bytes must match: an empty slice under omitempty comes back nil, which
// encodes identically.
func roundTrip(t *testing.T, seq uint64, callID string, body any, sameValue bool) {
	t.Helper()
	rec, err := NewRecord(seq, 1_763_000_000_000_000_001+int64(seq), callID, body)
	if err != nil {
		t.Fatalf("NewRecord: %v", err)
	}
	wire, err := rec.Marshal()
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	got, err := Unmarshal(wire)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Fatalf("envelope changed:\n got %+v\nwant %+v", got, rec)
	}
	decoded, err := got.Decode()
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if want := reflect.New(reflect.TypeOf(body)); reflect.TypeOf(decoded) != want.Type() {
		t.Fatalf("Decode gave %T, want %s", decoded, want.Type())
	}
	if sameValue && !reflect.DeepEqual(reflect.ValueOf(decoded).Elem().Interface(), body) {
		t.Errorf("body changed:\n got %+v\nwant %+v", reflect.ValueOf(decoded).Elem().Interface(), body)
	}
	again, err := EncodeBody(decoded)
	if err != nil {
		t.Fatalf("EncodeBody: %v", err)
	}
	if !bytes.Equal(again, rec.Body) {
		t.Errorf("re-encoded body differs:\n got %x\nwant %x", again, rec.Body)
	}
	rewire, err := got.Marshal()
	if err != nil {
		t.Fatalf("re-Marshal: %v", err)
	}
	if !bytes.Equal(rewire, wire) {
		t.Errorf("re-marshalled envelope differs:\n got %x\nwant %x", rewire, wire)
	}
	// A record rebuilt from the decoded body seals to the same bytes.
	rebuilt, err := NewRecord(seq, rec.At, callID, decoded)
	if err != nil {
		t.Fatalf("NewRecord(decoded): %v", err)
	}
	if rewire, _ := rebuilt.Marshal(); !bytes.Equal(rewire, wire) {
		t.Errorf("record rebuilt from the decoded body differs:\n got %x\nwant %x", rewire, wire)
	}
}

func TestRoundTripIsByteIdentical(t *testing.T) {
	sets := []struct {
		name      string
		bodies    []any
		sameValue bool
	}{
		{"populated", populatedBodies(), true},
		{"zero", zeroBodies(), true},
		{"empty", emptyBodies(), false},
	}
	for _, set := range sets {
		for i, body := range set.bodies {
			kind, _ := KindOf(body)
			t.Run(fmt.Sprintf("%s/%s", set.name, kind), func(t *testing.T) {
				roundTrip(t, uint64(i+1), "call_1", body, set.sameValue)
				roundTrip(t, 1<<40+uint64(i), "", body, set.sameValue)
			})
		}
	}
}

func TestRoundTripExtremeEnvelopeValues(t *testing.T) {
	body := Transition{CallID: "c", From: "a", Event: "e", To: "b", Cause: "x", Reason: "y"}
	for _, seq := range []uint64{1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1<<64 - 1} {
		for _, at := range []int64{-1 << 63, -1, 0, 1, 1<<63 - 1} {
			rec, err := NewRecord(seq, at, string(bytes.Repeat([]byte{'x'}, 300)), body)
			if err != nil {
				t.Fatal(err)
			}
			wire, _ := rec.Marshal()
			got, err := Unmarshal(wire)
			if err != nil {
				t.Fatalf("seq %d at %d: %v", seq, at, err)
			}
			if !reflect.DeepEqual(got, rec) {
				t.Fatalf("seq %d at %d: got %+v", seq, at, got)
			}
		}
	}
}

func TestEveryKindHasABodyAndBack(t *testing.T) {
	for _, k := range Kinds() {
		if !k.Known() {
			t.Errorf("%s is listed but not Known", k)
		}
		b, ok := NewBody(k)
		if !ok {
			t.Errorf("%s has no body type", k)
			continue
		}
		if back, ok := KindOf(b); !ok || back != k {
			t.Errorf("KindOf(NewBody(%s)) = %q, %v", k, back, ok)
		}
		if back, _ := KindOf(reflect.ValueOf(b).Elem().Interface()); back != k {
			t.Errorf("KindOf(value of %s) = %q", k, back)
		}
	}
}

func TestInputsAndDecisionsAreSeparate(t *testing.T) {
	inputs := map[RecordKind]bool{
		KindSessionStarted: true, KindSessionResumed: true, KindUserTurn: true, KindModelResponse: true,
		KindDecision: true, KindExecOutcome: true, KindRiskAssessment: true, KindPolicyChanged: true, KindCompaction: true, KindHookVerdict: true,
		KindNetworkDecision: true, KindNetworkConnection: true,
	}
	for _, k := range Kinds() {
		if k.IsInput() != inputs[k] {
			t.Errorf("%s.IsInput() = %v, want %v", k, k.IsInput(), inputs[k])
		}
	}
	if RecordKind("nope").IsInput() || RecordKind("nope").Known() {
		t.Error("an unknown kind claims to be known or an input")
	}
}

func TestNewRecordRejectsNonBodies(t *testing.T) {
	for _, v := range []any{nil, 42, "text", map[string]string{"a": "b"}, &struct{}{}} {
		if _, err := NewRecord(1, 0, "", v); err == nil {
			t.Errorf("NewRecord(%T) succeeded", v)
		}
	}
}

// Body structs must never contain maps: their encoding order is not
// deterministic, so a round trip would not be byte-identical.
func TestBodiesContainNoMaps(t *testing.T) {
	var walk func(path string, ty reflect.Type, seen map[reflect.Type]bool)
	walk = func(path string, ty reflect.Type, seen map[reflect.Type]bool) {
		switch ty.Kind() {
		case reflect.Map, reflect.Interface:
			t.Errorf("%s is a %s; bodies must be deterministic", path, ty.Kind())
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(path, ty.Elem(), seen)
		case reflect.Struct:
			if seen[ty] {
				return
			}
			seen[ty] = true
			for i := 0; i < ty.NumField(); i++ {
				f := ty.Field(i)
				walk(path+"."+f.Name, f.Type, seen)
			}
		}
	}
	for _, k := range Kinds() {
		b, _ := NewBody(k)
		walk(string(k), reflect.TypeOf(b), map[reflect.Type]bool{})
	}
}
