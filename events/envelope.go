package events

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// castagnoli is made on first use: building the table costs every docket
// process about 0.1 ms at start, and most never journal (issue 26).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Record is the envelope every journal entry travels in. Body holds the
// msgpack encoding of the kind's body struct; CRC is CRC-32C over the other
// fields, so a flipped bit anywhere in a record is detected.
type Record struct {
	Seq    uint64
	Kind   RecordKind
	At     int64 // Unix nanoseconds, from the engine's clock
	CallID string
	Body   []byte
	CRC    uint32
}

// ErrCorrupt is wrapped by every decoding failure caused by damaged bytes.
var ErrCorrupt = errors.New("corrupt record")

// CorruptError says which record could not be decoded and why.
type CorruptError struct {
	Seq    uint64 // the seq the caller expected, or 0 if unknown
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Seq == 0 {
		return "corrupt record: " + e.Reason
	}
	return fmt.Sprintf("corrupt record %d: %s", e.Seq, e.Reason)
}

// Unwrap lets errors.Is(err, ErrCorrupt) match.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// Checksum computes the CRC-32C that a record with these fields must carry.
func Checksum(seq uint64, kind RecordKind, at int64, callID string, body []byte) uint32 {
	var hdr [16]byte
	binary.BigEndian.PutUint64(hdr[:8], seq)
	binary.BigEndian.PutUint64(hdr[8:], uint64(at))
	tab := castagnoli()
	c := crc32.Update(0, tab, hdr[:])
	c = crc32.Update(c, tab, []byte{byte(len(kind))})
	c = crc32.Update(c, tab, []byte(kind))
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(callID)))
	c = crc32.Update(c, tab, l[:])
	c = crc32.Update(c, tab, []byte(callID))
	return crc32.Update(c, tab, body)
}

// NewRecord encodes body and seals it in an envelope with its checksum.
func NewRecord(seq uint64, at int64, callID string, body any) (Record, error) {
	kind, ok := KindOf(body)
	if !ok {
		return Record{}, fmt.Errorf("events: %T is not a record body", body)
	}
	b, err := EncodeBody(body)
	if err != nil {
		return Record{}, fmt.Errorf("events: encode %s body: %w", kind, err)
	}
	return Record{Seq: seq, Kind: kind, At: at, CallID: callID, Body: b, CRC: Checksum(seq, kind, at, callID, b)}, nil
}

func newEncoder(buf *bytes.Buffer) *msgpack.Encoder {
	enc := msgpack.NewEncoder(buf)
	enc.UseCompactInts(true)
	enc.SetSortMapKeys(true)
	enc.SetCustomStructTag("msgpack")
	return enc
}

// EncodeBody encodes a record body deterministically.
func EncodeBody(body any) ([]byte, error) {
	var buf bytes.Buffer
	if err := newEncoder(&buf).Encode(body); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Marshal encodes the envelope as a six-element msgpack array.
func (r Record) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(r.Body) + len(r.Kind) + len(r.CallID) + 32)
	enc := newEncoder(&buf)
	err := errors.Join(
		enc.EncodeArrayLen(6),
		enc.EncodeUint(r.Seq),
		enc.EncodeString(string(r.Kind)),
		enc.EncodeInt(r.At),
		enc.EncodeString(r.CallID),
		enc.EncodeBytes(r.Body),
		enc.EncodeUint(uint64(r.CRC)),
	)
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes an envelope and verifies its checksum. It never panics
// on damaged input; every failure wraps ErrCorrupt.
func Unmarshal(b []byte) (Record, error) {
	var r Record
	if len(b) == 0 {
		return r, &CorruptError{Reason: "empty record"}
	}
	size, err := wellFormed(b)
	if err != nil {
		return r, &CorruptError{Reason: "malformed envelope: " + err.Error()}
	}
	if size < len(b) {
		return r, &CorruptError{Reason: fmt.Sprintf("%d trailing bytes after the envelope", len(b)-size)}
	}
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	n, err := dec.DecodeArrayLen()
	if err != nil {
		return r, &CorruptError{Reason: "envelope header: " + err.Error()}
	}
	if n != 6 {
		return r, &CorruptError{Reason: fmt.Sprintf("envelope has %d fields, want 6", n)}
	}
	var kind string
	var crc uint64
	steps := []func() error{
		func() (e error) { r.Seq, e = dec.DecodeUint64(); return },
		func() (e error) { kind, e = dec.DecodeString(); return },
		func() (e error) { r.At, e = dec.DecodeInt64(); return },
		func() (e error) { r.CallID, e = dec.DecodeString(); return },
		func() (e error) { r.Body, e = dec.DecodeBytes(); return },
		func() (e error) { crc, e = dec.DecodeUint64(); return },
	}
	names := []string{"seq", "kind", "at", "call id", "body", "crc"}
	for i, step := range steps {
		if err := step(); err != nil {
			return r, &CorruptError{Seq: r.Seq, Reason: fmt.Sprintf("envelope %s: %v", names[i], err)}
		}
	}
	if crc > 0xffffffff {
		return r, &CorruptError{Seq: r.Seq, Reason: "crc out of range"}
	}
	r.Kind, r.CRC = RecordKind(kind), uint32(crc)
	if got := Checksum(r.Seq, r.Kind, r.At, r.CallID, r.Body); got != r.CRC {
		return r, &CorruptError{Seq: r.Seq, Reason: fmt.Sprintf("CRC-32C mismatch: stored %08x, computed %08x", r.CRC, got)}
	}
	// Marshal is the only writer, so any other encoding of the same values
	// (a widened integer header, say) is damage the CRC cannot see.
	if canon, err := r.Marshal(); err != nil || !bytes.Equal(canon, b) {
		return r, &CorruptError{Seq: r.Seq, Reason: "envelope is not in canonical form"}
	}
	return r, nil
}

// Decode decodes the record's body into the struct for its kind.
func (r Record) Decode() (any, error) {
	body, ok := NewBody(r.Kind)
	if !ok {
		return nil, &UnknownKindError{Seq: r.Seq, Kind: r.Kind}
	}
	if err := DecodeBody(r.Body, body); err != nil {
		return nil, &CorruptError{Seq: r.Seq, Reason: fmt.Sprintf("%s body: %v", r.Kind, err)}
	}
	if ss, ok := body.(*SessionStarted); ok && ss.Version > FormatVersion {
		return nil, &NewerVersionError{Version: ss.Version}
	}
	return body, nil
}

// DecodeBody decodes msgpack bytes into a body pointer. The bytes must hold
// exactly one well-formed msgpack value.
func DecodeBody(b []byte, body any) error {
	size, err := wellFormed(b)
	if err != nil {
		return fmt.Errorf("malformed body: %w", err)
	}
	if size < len(b) {
		return fmt.Errorf("%d trailing bytes after the body", len(b)-size)
	}
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	dec.SetCustomStructTag("msgpack")
	return dec.Decode(body)
}

// NewerVersionError is returned for a journal written by a newer format.
type NewerVersionError struct {
	Version uint32
}

func (e *NewerVersionError) Error() string {
	return fmt.Sprintf("journal format version %d is newer than this docket understands (%d); upgrade docket to read it", e.Version, FormatVersion)
}
