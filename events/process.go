package events

// ProcessCall is the write-ahead part of a call that starts or talks to a
// long-lived process (exec_command, write_stdin): which process, how it is
// driven, and for write_stdin the exact characters written. It rides in
// ExecStarted, so the bytes are durable before they reach the process.
type ProcessCall struct {
	// ID is the process's session id as the model sees it ("session ID N").
	ID int `msgpack:"id"`
	// Tty: the process has a pseudo-terminal rather than pipes.
	Tty bool `msgpack:"tty,omitempty"`
	// YieldMs is how long the call waits for output before it returns.
	YieldMs int64 `msgpack:"yield_ms"`
	// MaxOutputTokens bounds the output the model is shown for this call.
	MaxOutputTokens int `msgpack:"max_output_tokens"`
	// Chars is what write_stdin writes (empty: a poll).
	Chars string `msgpack:"chars,omitempty"`
	// StartedBy is the call that started the process (write_stdin only).
	StartedBy string `msgpack:"started_by,omitempty"`
	// Evicts are the session ids exec_command ends before it starts its
	// own: the oldest live processes, when the session is at its limit.
	Evicts []int `msgpack:"evicts,omitempty"`
}

// ProcessPoll is what one call collected from a long-lived process: it
// rides in ExecOutcome, whose Output holds the chunk and ExitCode the exit
// status once Running is false.
type ProcessPoll struct {
	ID int `msgpack:"id"`
	// Running: the process was still running when the call returned.
	Running bool `msgpack:"running,omitempty"`
	// ChunkID names the chunk for the model, as Codex does.
	ChunkID string `msgpack:"chunk_id"`
	// OriginalTokens estimates the chunk's size before truncation.
	OriginalTokens int `msgpack:"original_tokens"`
}

// ProcessEnd says how a long-lived process left the session other than
// by being seen to exit by a call.
type ProcessEnd string

// How a long-lived process can end outside a call.
const (
	// ProcessEvicted: the session reached its limit of live processes and
	// this one, the oldest, was killed to make room.
	ProcessEvicted ProcessEnd = "evicted"
	// ProcessSessionClosed: the session closed while the process ran, and
	// docket killed it, as Codex does when its session ends.
	ProcessSessionClosed ProcessEnd = "session_closed"
)

// ProcessEnded records that a long-lived process of the session is gone
// for a reason no call's outcome recorded. It is a decision record: the
// engine writes it when it evicts a process to stay within the session's
// limit, and for each process still running when the session closes;
// replay recomputes and compares it. (A process lost with a killed
// docket needs no record: every session_resumed says so of them all.)
type ProcessEnded struct {
	ID int `msgpack:"id"`
	// CallID is the call that started the process.
	CallID string     `msgpack:"call_id"`
	How    ProcessEnd `msgpack:"how"`
	Reason string     `msgpack:"reason"`
}
