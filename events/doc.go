// Package events is the journal's vocabulary: the record kinds, their bodies,
// the envelope that carries them, and its msgpack encoding with a CRC-32C.
//
// Record bodies never contain Go maps, because map encoding order is not
// deterministic and a decode-then-encode round trip must be byte-identical.
// Times are carried as Unix nanoseconds (int64) for the same reason.
package events
