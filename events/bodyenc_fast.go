package events

import "bytes"

// transitionKeys are Transition's msgpack keys in field order, as the
// reflecting encoder writes them (no field omits itself when empty).
var transitionKeys = [6]string{"call_id", "from", "event", "to", "cause", "reason"}

// encodeTransition writes t as the msgpack encoder configured by
// newEncoder does: a map of six string keys in field order, each value a
// string in its shortest msgpack form. Transitions are two of every five
// records a call writes, and the reflecting encoder spent more on finding
// their fields than on writing them (issue 31: verify replay encodes each
// record it compares). TestBodyEncoderTransitionFastPath holds the two
// byte-identical.
func encodeTransition(buf *bytes.Buffer, t *Transition) {
	vals := [6]string{t.CallID, t.From, t.Event, t.To, t.Cause, t.Reason}
	buf.WriteByte(0x80 | byte(len(vals))) // fixmap
	for i, k := range transitionKeys {
		writeMsgpackString(buf, k)
		writeMsgpackString(buf, vals[i])
	}
}

// writeMsgpackString writes s with msgpack's shortest string header:
// fixstr, str8, str16 or str32.
func writeMsgpackString(buf *bytes.Buffer, s string) {
	switch n := len(s); {
	case n < 32:
		buf.WriteByte(0xa0 | byte(n))
	case n < 1<<8:
		buf.Write([]byte{0xd9, byte(n)})
	case n < 1<<16:
		buf.Write([]byte{0xda, byte(n >> 8), byte(n)})
	default:
		buf.Write([]byte{0xdb, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
	}
	buf.WriteString(s)
}

// encodeToolOutput writes o as the reflecting encoder does: a map of its
// four fields in order, none omitted when empty. A tool output is another
// of every call's records. TestBodyEncoderToolOutputFastPath holds the two
// byte-identical.
func encodeToolOutput(buf *bytes.Buffer, o *ToolOutput) {
	buf.WriteByte(0x80 | 4) // fixmap
	writeMsgpackString(buf, "call_id")
	writeMsgpackString(buf, o.CallID)
	writeMsgpackString(buf, "type")
	writeMsgpackString(buf, o.Type)
	writeMsgpackString(buf, "output")
	writeMsgpackString(buf, o.Output)
	writeMsgpackString(buf, "success")
	if o.Success {
		buf.WriteByte(0xc3)
	} else {
		buf.WriteByte(0xc2)
	}
}
