package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"hash"

	"github.com/docket-engine/docket/events"
)

// itemHasher extends the conversation's hash chain by one item:
// H(previous digest || the item's json.Marshal bytes). It keeps its buffer,
// encoder and digest between items; a fresh Marshal, digest and sum per
// item were three allocations for every item of every turn (issue 31).
// Not safe for concurrent use: the session's mutex guards it.
//
// The buffer grows to the largest item hashed (an image, a tool's whole
// output): past maxKeptHashBuf it is let go after the item, so one large
// item does not stay held for the session's life.
type itemHasher struct {
	buf bytes.Buffer
	enc *json.Encoder
	h   hash.Hash
	sum []byte
}

// next returns the digest after prev and it.
func (x *itemHasher) next(prev [32]byte, it *events.Item) [32]byte {
	if x.enc == nil {
		x.enc = json.NewEncoder(&x.buf) // escapes HTML, as Marshal does
		x.h = sha256.New()
	}
	x.buf.Reset()
	var b []byte // what Marshal returned: nothing on an error
	if err := x.enc.Encode(it); err == nil {
		b = bytes.TrimSuffix(x.buf.Bytes(), []byte("\n")) // Encode's newline, not Marshal's
	}
	x.h.Reset()
	x.h.Write(prev[:])
	x.h.Write(b)
	x.sum = x.h.Sum(x.sum[:0]) // into the hasher's buffer: a local array would escape
	var out [32]byte
	copy(out[:], x.sum)
	if x.buf.Cap() > maxKeptHashBuf {
		// The encoder writes to &x.buf, which stays where it is.
		x.buf = bytes.Buffer{}
	}
	return out
}

// maxKeptHashBuf is the largest buffer an itemHasher keeps between items:
// most items (messages, calls, short outputs) fit.
const maxKeptHashBuf = 64 << 10
