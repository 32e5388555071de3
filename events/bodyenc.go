package events

import (
	"bytes"

	"github.com/vmihailenco/msgpack/v5"
)

// BodyEncoder encodes record bodies exactly as EncodeBody does, reusing
// one buffer and encoder between calls: verify replay encodes every record
// the engine writes to compare it with the journal's, and a fresh encoder
// per record was a good part of what a replay allocated. It is not safe
// for concurrent use.
type BodyEncoder struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

// Encode returns body's canonical encoding. The bytes are valid until the
// next call.
func (e *BodyEncoder) Encode(body any) ([]byte, error) {
	if e.enc == nil {
		e.enc = newEncoder(&e.buf)
	}
	e.buf.Reset()
	switch b := body.(type) {
	case Transition:
		encodeTransition(&e.buf, &b)
		return e.buf.Bytes(), nil
	case ToolOutput:
		encodeToolOutput(&e.buf, &b)
		return e.buf.Bytes(), nil
	}
	if err := e.enc.Encode(body); err != nil {
		return nil, err
	}
	return e.buf.Bytes(), nil
}
