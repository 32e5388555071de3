package engine

// reserveStack grows a call's goroutine stack once, at its first frame.
// Deciding a call parses its shell script (states/cmdsafety), whose
// recursion grows a fresh goroutine's stack; growing it there, under the
// frames of the engine, the decider and the parser, copies and adjusts
// every one of them (a tenth of a verify replay's CPU, issue 31). Here the
// only frame to move is this one's caller. 12 KiB of frame makes the
// runtime allocate a 16 KiB stack, what deciding a call needs in one step.
//
//go:noinline
func reserveStack(n int) byte {
	var frame [12 << 10]byte
	frame[n%len(frame)] = 1
	return frame[n/2%len(frame)]
}
