package events

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// sampleWires returns the marshalled populated record of every kind.
func sampleWires(t testing.TB) ([]Record, [][]byte) {
	t.Helper()
	var recs []Record
	var wires [][]byte
	for i, body := range populatedBodies() {
		rec, err := NewRecord(uint64(i+1), 1_763_000_000_000_000_000+int64(i), "call_1", body)
		if err != nil {
			t.Fatal(err)
		}
		wire, err := rec.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		wires = append(wires, wire)
	}
	return recs, wires
}

func indexOfKind(t testing.TB, recs []Record, k RecordKind) int {
	for i, r := range recs {
		if r.Kind == k {
			return i
		}
	}
	t.Fatalf("no sample of kind %s", k)
	return -1
}

// A flipped bit anywhere in a record is either rejected as corrupt or (when
// it lands where the CRC cannot see it, which should be nowhere) yields a
// record that differs: never a panic, never a silent equal.
func TestEveryBitFlipIsDetected(t *testing.T) {
	recs, wires := sampleWires(t)
	for i, wire := range wires {
		for pos := range wire {
			for bit := 0; bit < 8; bit++ {
				damaged := bytes.Clone(wire)
				damaged[pos] ^= 1 << bit
				got, err := Unmarshal(damaged)
				if err != nil {
					if !errors.Is(err, ErrCorrupt) {
						t.Fatalf("%s byte %d bit %d: error %v does not wrap ErrCorrupt", recs[i].Kind, pos, bit, err)
					}
					continue
				}
				if reflect.DeepEqual(got, recs[i]) {
					t.Fatalf("%s byte %d bit %d: damaged record decoded equal to the original", recs[i].Kind, pos, bit)
				}
				_, _ = got.Decode() // must not panic
			}
		}
	}
}

func TestEveryByteValueAtEveryPositionIsSafe(t *testing.T) {
	recs, wires := sampleWires(t)
	i := indexOfKind(t, recs, KindTransition) // short enough for 256 values per byte
	wire, rec := wires[i], recs[i]
	for pos := range wire {
		for v := 0; v < 256; v++ {
			if byte(v) == wire[pos] {
				continue
			}
			damaged := bytes.Clone(wire)
			damaged[pos] = byte(v)
			got, err := Unmarshal(damaged)
			if err == nil && reflect.DeepEqual(got, rec) {
				t.Fatalf("byte %d = %#x: damaged record decoded equal to the original", pos, v)
			}
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d = %#x: %v does not wrap ErrCorrupt", pos, v, err)
			}
		}
	}
}

func TestEveryTruncationIsCorrupt(t *testing.T) {
	recs, wires := sampleWires(t)
	for i, wire := range wires {
		for n := 0; n < len(wire); n++ {
			_, err := Unmarshal(wire[:n:n])
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s cut to %d of %d bytes: got %v, want ErrCorrupt", recs[i].Kind, n, len(wire), err)
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Reason == "" {
				t.Fatalf("%s cut to %d bytes: %v is not a *CorruptError with a reason", recs[i].Kind, n, err)
			}
		}
	}
}

func TestTrailingBytesAreCorrupt(t *testing.T) {
	_, wires := sampleWires(t)
	for _, extra := range [][]byte{{0}, {0xc0}, []byte("garbage"), wires[0]} {
		_, err := Unmarshal(append(bytes.Clone(wires[1]), extra...))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "trailing") {
			t.Errorf("record followed by %d extra bytes: got %v, want a trailing-bytes ErrCorrupt", len(extra), err)
		}
	}
}

func TestMalformedEnvelopes(t *testing.T) {
	enc := func(vals ...any) []byte {
		var buf bytes.Buffer
		e := msgpack.NewEncoder(&buf)
		for _, v := range vals {
			if err := e.Encode(v); err != nil {
				t.Fatal(err)
			}
		}
		return buf.Bytes()
	}
	body, _ := EncodeBody(UserTurn{TurnID: "t", Text: "hi"})
	crc := Checksum(1, KindUserTurn, 5, "", body)
	tests := []struct {
		name string
		wire []byte
		want string // in the error text
	}{
		{"empty input", nil, "empty record"},
		{"empty slice", []byte{}, "empty record"},
		{"not an array", enc("hello"), "envelope header"},
		{"nil", enc(nil), "envelope has"},
		{"five fields", enc([]any{1, "user_turn", 5, "", body}), "5 fields"},
		{"seven fields", enc([]any{1, "user_turn", 5, "", body, crc, 0}), "7 fields"},
		{"seq is a string", enc([]any{"1", "user_turn", 5, "", body, crc}), "envelope seq"},
		{"kind is a number", enc([]any{1, 7, 5, "", body, crc}), "envelope kind"},
		{"at is a string", enc([]any{1, "user_turn", "5", "", body, crc}), "envelope at"},
		{"call id is a map", enc([]any{1, "user_turn", 5, map[string]int{}, body, crc}), "envelope call id"},
		{"body is a number", enc([]any{1, "user_turn", 5, "", 3, crc}), "envelope body"},
		{"crc is a string", enc([]any{1, "user_turn", 5, "", body, "x"}), "envelope crc"},
		{"crc over 32 bits", enc([]any{1, "user_turn", 5, "", body, uint64(crc) | 1<<32}), "crc out of range"},
		{"crc mismatch", enc([]any{1, "user_turn", 5, "", body, crc ^ 1}), "CRC-32C mismatch"},
		{"huge array header", []byte{0xdd, 0xff, 0xff, 0xff, 0xff}, "malformed envelope: container at byte 0 claims 4294967295 elements"},
		{"huge body length", append([]byte("\x96\x01\xa9user_turn\x05\xa0"), 0xc6, 0x7f, 0xff, 0xff, 0xff), "malformed envelope: value at byte 14 claims 2147483647 bytes"},
		{"huge kind length", []byte("\x96\x01\xdb\xff\xff\xff\xffuser_turn"), "malformed envelope"},
		{"reserved code", []byte{0x96, 0xc1, 0, 0, 0, 0, 0}, "invalid msgpack code 0xc1"},
		{"deep nesting", bytes.Repeat([]byte{0x91}, 100), "nesting deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unmarshal(tt.wire)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestCorruptErrorNamesTheRecord(t *testing.T) {
	_, wires := sampleWires(t)
	wire := bytes.Clone(wires[2])
	wire[len(wire)-1] ^= 0x01
	_, err := Unmarshal(wire)
	if err == nil || !strings.HasPrefix(err.Error(), "corrupt record 3: CRC-32C mismatch") {
		t.Fatalf("got %v, want it to name record 3 and the CRC", err)
	}
}

func TestUnknownKind(t *testing.T) {
	body, _ := EncodeBody(UserTurn{TurnID: "t"})
	rec := Record{Seq: 9, Kind: "teleport", At: 1, Body: body, CRC: Checksum(9, "teleport", 1, "", body)}
	wire, _ := rec.Marshal()
	got, err := Unmarshal(wire)
	if err != nil {
		t.Fatalf("a well-formed record of an unknown kind must unmarshal (replay may skip it): %v", err)
	}
	_, err = got.Decode()
	var uk *UnknownKindError
	if !errors.As(err, &uk) || uk.Seq != 9 || uk.Kind != "teleport" {
		t.Fatalf("got %v, want *UnknownKindError{9, teleport}", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `record 9 has unknown kind "teleport"`) || !strings.Contains(msg, "upgrade docket") {
		t.Errorf("unclear message: %q", msg)
	}
}

func TestBodyOfTheWrongShapeIsCorrupt(t *testing.T) {
	good, _ := EncodeBody(Transition{CallID: "c"})
	bodies := map[string][]byte{
		"empty":            nil,
		"reserved code":    {0xc1},
		"a number":         {0x01},
		"a string":         []byte("\xa5hello"),
		"wrong field type": {0x81, 0xa7, 'c', 'a', 'l', 'l', '_', 'i', 'd', 0x01},
		"trailing bytes":   append(bytes.Clone(good), 0x00),
		"huge string":      {0x81, 0xa7, 'c', 'a', 'l', 'l', '_', 'i', 'd', 0xdb, 0xff, 0xff, 0xff, 0xf0, 'x'},
		"huge array":       {0xdd, 0x0f, 0xff, 0xff, 0xff, 0x01},
		"truncated":        good[:len(good)-1],
	}
	for name, raw := range bodies {
		rec := Record{Seq: 4, Kind: KindTransition, Body: raw, CRC: Checksum(4, KindTransition, 0, "", raw)}
		_, err := rec.Decode()
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "corrupt record 4: transition body") {
			t.Errorf("%s body %x: got %v, want a corrupt-record error naming seq and kind", name, raw, err)
		}
	}
}

func TestNewerVersionIsRefusedClearly(t *testing.T) {
	rec, err := NewRecord(1, 0, "", SessionStarted{Version: FormatVersion + 1, SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	wire, _ := rec.Marshal()
	got, err := Unmarshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	body, err := got.Decode()
	var nv *NewerVersionError
	if !errors.As(err, &nv) || nv.Version != FormatVersion+1 || body != nil {
		t.Fatalf("got %v, %v; want *NewerVersionError{%d}", body, err, FormatVersion+1)
	}
	want := fmt.Sprintf("journal format version %d is newer than this docket understands (%d); upgrade docket to read it", FormatVersion+1, FormatVersion)
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	for _, v := range []uint32{0, FormatVersion} {
		rec, _ := NewRecord(1, 0, "", SessionStarted{Version: v})
		if _, err := rec.Decode(); err != nil {
			t.Errorf("version %d refused: %v", v, err)
		}
	}
}
