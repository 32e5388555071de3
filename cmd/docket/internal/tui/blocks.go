package tui

import (
	"strings"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/states"
)

// blockKind is what one piece of the transcript is.
type blockKind int

const (
	blockUser blockKind = iota
	blockAssistant
	blockReasoning
	blockCall
	blockInfo
	blockError
)

// maxTailLines bounds the command output a call's block keeps: the live
// line shows the last few, the rest is folded into a count.
const maxTailLines = 4

// block is one piece of the transcript. A finished block is printed into
// the terminal's scrollback and dropped from memory.
type block struct {
	kind     blockKind
	text     string
	finished bool
	call     *callView
}

// callView is what the UI knows of one tool call, from its notices.
type callView struct {
	id      string
	tool    string
	command []string
	changes []engine.FileChange
	server  string
	mcpTool string
	state   states.State
	cause   string
	status  engine.CallStatus
	exit    int
	// tail is the last lines of output; lines counts them all.
	tail    []string
	partial string
	lines   int
	done    bool
	// retry: the sandbox denied a run and the call went to the retry
	// prompt; its approval is for running without the sandbox.
	retry bool
}

// addOutput folds a chunk of output into the call's tail.
func (c *callView) addOutput(chunk string) {
	text := c.partial + chunk
	parts := strings.Split(text, "\n")
	c.partial = parts[len(parts)-1]
	for _, l := range parts[:len(parts)-1] {
		c.lines++
		c.tail = append(c.tail, l)
		if len(c.tail) > maxTailLines {
			c.tail = c.tail[1:]
		}
	}
}

// setAggregated replaces the tail with the call's whole output, as the
// completion notice carries it.
func (c *callView) setAggregated(out string) {
	if out == "" {
		return
	}
	c.tail, c.partial, c.lines = nil, "", 0
	c.addOutput(strings.TrimRight(out, "\n") + "\n")
}

// stateLabel names a call's state the way a person reads it.
func stateLabel(c *callView) string {
	switch c.state {
	case states.WantsApproval, "":
		return "checking"
	case states.AwaitingDecision:
		if c.retry {
			return "sandbox denied it: waiting for approval to retry unsandboxed"
		}
		return "waiting for approval"
	case states.Sandboxed:
		return "running sandboxed"
	case states.RetryPrompt:
		return "sandbox denied it: asking to retry unsandboxed"
	case states.Unsandboxed:
		return "running UNSANDBOXED"
	case states.Denied:
		if c.cause != "" {
			return "denied (" + c.cause + ")"
		}
		return "denied"
	case states.Done:
		switch c.status {
		case engine.StatusCompleted:
			return "done"
		case engine.StatusDeclined:
			return "declined"
		case engine.StatusFailed:
			if c.cause != "" && c.cause != "completed" {
				return "failed (" + c.cause + ")"
			}
			return "failed"
		}
		return "done"
	}
	return string(c.state)
}
