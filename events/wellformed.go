package events

import (
	"encoding/binary"
	"fmt"
)

// maxDepth bounds container nesting in a record. Real bodies nest three
// deep; the bound keeps a damaged record from driving the decoder's
// recursion.
const maxDepth = 32

// wellFormed walks the one msgpack object at the start of b and returns its
// length. It checks that every length and element count fits in the bytes
// that remain, before the msgpack decoder trusts them: the decoder allocates
// a string or byte slice of the stated length up front, so a single damaged
// length byte could otherwise ask for gigabytes.
func wellFormed(b []byte) (int, error) {
	pos := 0
	remain := func() uint64 { return uint64(len(b) - pos) }
	length := func(width int) (uint64, error) {
		if remain() < uint64(width) {
			return 0, fmt.Errorf("truncated at byte %d", len(b))
		}
		var n uint64
		switch width {
		case 1:
			n = uint64(b[pos])
		case 2:
			n = uint64(binary.BigEndian.Uint16(b[pos:]))
		case 4:
			n = uint64(binary.BigEndian.Uint32(b[pos:]))
		}
		pos += width
		return n, nil
	}
	stack := []uint64{1} // objects still to read at each nesting level
	for len(stack) > 0 {
		if stack[len(stack)-1] == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		stack[len(stack)-1]--
		if remain() == 0 {
			return pos, fmt.Errorf("truncated at byte %d", len(b))
		}
		at := pos
		c := b[pos]
		pos++
		var skip, elems uint64
		var container bool
		var err error
		switch {
		case c <= 0x7f, c >= 0xe0, c == 0xc0, c == 0xc2, c == 0xc3:
		case c >= 0x80 && c <= 0x8f:
			elems, container = 2*uint64(c&0x0f), true
		case c >= 0x90 && c <= 0x9f:
			elems, container = uint64(c&0x0f), true
		case c >= 0xa0 && c <= 0xbf:
			skip = uint64(c & 0x1f)
		case c == 0xc4 || c == 0xd9:
			skip, err = length(1)
		case c == 0xc5 || c == 0xda:
			skip, err = length(2)
		case c == 0xc6 || c == 0xdb:
			skip, err = length(4)
		case c == 0xc7:
			skip, err = length(1)
			skip++ // the ext type byte
		case c == 0xc8:
			skip, err = length(2)
			skip++
		case c == 0xc9:
			skip, err = length(4)
			skip++
		case c == 0xcc || c == 0xd0:
			skip = 1
		case c == 0xcd || c == 0xd1:
			skip = 2
		case c == 0xca || c == 0xce || c == 0xd2:
			skip = 4
		case c == 0xcb || c == 0xcf || c == 0xd3:
			skip = 8
		case c >= 0xd4 && c <= 0xd8:
			skip = 1 + 1<<(c-0xd4)
		case c == 0xdc:
			elems, err = length(2)
			container = true
		case c == 0xdd:
			elems, err = length(4)
			container = true
		case c == 0xde:
			elems, err = length(2)
			elems, container = 2*elems, true
		case c == 0xdf:
			elems, err = length(4)
			elems, container = 2*elems, true
		default: // 0xc1 is reserved and never written
			return at, fmt.Errorf("invalid msgpack code %#x at byte %d", c, at)
		}
		if err != nil {
			return at, err
		}
		if skip > remain() {
			return at, fmt.Errorf("value at byte %d claims %d bytes but only %d remain", at, skip, remain())
		}
		pos += int(skip)
		if container {
			// Every element takes at least one byte.
			if elems > remain() {
				return at, fmt.Errorf("container at byte %d claims %d elements but only %d bytes remain", at, elems, remain())
			}
			if len(stack) > maxDepth {
				return at, fmt.Errorf("nesting deeper than %d at byte %d", maxDepth, at)
			}
			stack = append(stack, elems)
		}
	}
	return pos, nil
}
