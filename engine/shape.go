package engine

import "github.com/docket-engine/docket/internal/elide"

// shapeForModel returns output unchanged when it fits in maxBytes; otherwise
// it keeps the head and the tail, cut on UTF-8 boundaries, with a marker in
// the middle saying how many bytes were elided. The result is at most
// maxBytes long when maxBytes leaves room for the marker; a non-positive
// maxBytes returns output unchanged.
func shapeForModel(output string, maxBytes int) string {
	if maxBytes <= 0 || len(output) <= maxBytes {
		return output
	}
	// The marker's length depends on the count it prints, which depends on
	// the budget left after the marker; two rounds settle it since the count
	// only shrinks.
	budget := maxBytes - len(elide.Marker(int64(len(output))))
	if budget <= 0 {
		return elide.TrimRuneEnd(output[:maxBytes])
	}
	headLen := budget / 2
	tailLen := budget - headLen
	head := elide.TrimRuneEnd(output[:headLen])
	tail := elide.TrimRuneStart(output[len(output)-tailLen:])
	elided := int64(len(output) - len(head) - len(tail))
	return head + elide.Marker(elided) + tail
}
