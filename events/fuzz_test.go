package events

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

func addSeeds(f *testing.F) [][]byte {
	_, wires := sampleWires(f)
	for _, w := range wires {
		f.Add(w)
	}
	for _, b := range zeroBodies() {
		rec, _ := NewRecord(1, 0, "", b)
		w, _ := rec.Marshal()
		f.Add(w)
	}
	f.Add([]byte{})
	f.Add([]byte{0x96})
	return wires
}

// FuzzUnmarshal feeds arbitrary bytes to the envelope decoder and, when they
// pass, to the body decoder: neither may panic, failures wrap ErrCorrupt (or
// name an unknown kind or a newer version), and what decodes re-encodes to
// the same bytes.
func FuzzUnmarshal(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Unmarshal(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Unmarshal error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		wire, err := rec.Marshal()
		if err != nil || !bytes.Equal(wire, data) {
			t.Fatalf("accepted envelope re-marshals differently: %x vs %x (%v)", wire, data, err)
		}
		checkDecode(t, rec)
	})
}

// FuzzDecode seals fuzzed body bytes under every kind with a valid CRC, so
// the body decoder sees what a writer bug or a forged file could store.
func FuzzDecode(f *testing.F) {
	recs, _ := sampleWires(f)
	for _, r := range recs {
		f.Add(r.Body)
	}
	f.Add([]byte{0xc0})
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, k := range Kinds() {
			rec := Record{Seq: 1, Kind: k, Body: body, CRC: Checksum(1, k, 0, "", body)}
			wire, err := rec.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			got, err := Unmarshal(wire)
			if err != nil {
				t.Fatalf("a sealed record failed to unmarshal: %v", err)
			}
			checkDecode(t, got)
		}
	})
}

// checkDecode decodes rec's body and, when that works, checks that encoding
// is stable: the first re-encoding may normalise (say, drop an unknown
// field), after which decode and encode are a fixed point.
func checkDecode(t *testing.T, rec Record) {
	body, err := rec.Decode()
	if err != nil {
		var uk *UnknownKindError
		var nv *NewerVersionError
		if !errors.Is(err, ErrCorrupt) && !errors.As(err, &uk) && !errors.As(err, &nv) {
			t.Fatalf("Decode error %v (%T) is not corrupt, unknown kind or newer version", err, err)
		}
		return
	}
	once, err := EncodeBody(body)
	if err != nil {
		t.Fatalf("decoded %s body does not encode: %v", rec.Kind, err)
	}
	again, _ := NewBody(rec.Kind)
	if err := DecodeBody(once, again); err != nil {
		t.Fatalf("re-encoded %s body does not decode: %v", rec.Kind, err)
	}
	twice, _ := EncodeBody(again)
	if !bytes.Equal(once, twice) {
		t.Fatalf("%s body encoding is not a fixed point: %x vs %x", rec.Kind, once, twice)
	}
	third, _ := NewBody(rec.Kind)
	if err := DecodeBody(twice, third); err != nil || !reflect.DeepEqual(third, again) {
		t.Fatalf("%s body changed on re-decode:\n got %+v\nwant %+v (%v)", rec.Kind, third, again, err)
	}
}

// FuzzWellFormed checks the length pre-check against msgpack's own skipper:
// whatever wellFormed accepts, msgpack can skip to the same end.
func FuzzWellFormed(f *testing.F) {
	wires := addSeeds(f)
	f.Add(bytes.Repeat([]byte{0x91}, 40))
	f.Add(append(bytes.Clone(wires[0]), 1, 2, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := wellFormed(data)
		if err != nil {
			return
		}
		rd := bytes.NewReader(data)
		if err := msgpack.NewDecoder(rd).Skip(); err != nil {
			t.Fatalf("wellFormed accepted %d bytes that msgpack cannot skip: %v", n, err)
		}
		if got := len(data) - rd.Len(); got != n {
			t.Fatalf("wellFormed says the value is %d bytes, msgpack skipped %d", n, got)
		}
	})
}
