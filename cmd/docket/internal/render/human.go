package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events/safetext"
)

// HumanOptions tune the human renderer.
type HumanOptions struct {
	// Color turns on ANSI colours; set it only when stderr is a terminal.
	Color bool
	// Verbose also shows every state transition, reasoning and token usage.
	Verbose bool
	// Prompted says approvals are asked on the terminal, which shows the
	// request itself; the renderer then does not repeat it.
	Prompted bool
	// Progress shows a spinner on stderr while the model is working; set it
	// only when stderr is a terminal (it rewrites its line with \r).
	Progress bool
}

// Header is what a session's first lines say: which session, which model,
// under which policy and sandbox, in which workspace.
type Header struct {
	SessionID, Model, Provider       string
	ApprovalPolicy, SandboxMode      string
	NetworkAccess, Resumed, Bypassed bool
	Workspace                        string
	WritableRoots                    []string
	// EgressProfile names the permission profile whose network goes
	// through the session's egress proxy, "" when none does.
	EgressProfile string
}

// Human is an engine.Observer for people: the final message goes to
// stdout, everything else (commands, their output, approvals, denials) to
// stderr. It is safe for concurrent use.
type Human struct {
	mu     sync.Mutex
	stdout io.Writer
	stderr io.Writer
	// out collects one notice's lines, written to stderr in one go:
	// a write per output line made big outputs slow.
	out     bytes.Buffer
	opts    HumanOptions
	pending string // the latest agent message, not yet known to be final
	calls   map[string]*humanCall
	running int
	// spinning is true while the progress line is shown; spinGen tells a
	// spinner goroutine whether it is still the current one.
	spinning bool
	spinGen  int
	spinFrom time.Time
}

// humanCall is what the renderer remembers about a call in flight.
type humanCall struct {
	partial   []byte // output after the last newline, at most maxPartial bytes
	sandboxed string // the state it last ran in: sandboxed or unsandboxed
	started   bool
	// interrupted: a crash or an abort ended it, and the renderer said so.
	interrupted bool
}

// NewHuman returns a human renderer.
func NewHuman(stdout, stderr io.Writer, opts HumanOptions) *Human {
	return &Human{stdout: stdout, stderr: stderr, opts: opts, calls: map[string]*humanCall{}}
}

// ANSI styles.
const (
	styleBold   = "\x1b[1m"
	styleDim    = "\x1b[2m"
	styleRed    = "\x1b[31m"
	styleGreen  = "\x1b[32m"
	styleYellow = "\x1b[33m"
	styleCyan   = "\x1b[36m"
	styleReset  = "\x1b[0m"
)

// styledText is text already made safe, possibly wrapped in this
// renderer's own escape sequences; line passes it through as it is.
type styledText string

// multiline is a message whose line breaks are kept (made safe by Text).
type multiline string

// style makes text safe, folds it, and wraps it in an ANSI style when
// colours are on.
func (h *Human) style(s, text string) styledText {
	text = safetext.Fold(safetext.Line(text), safetext.DefaultWidth)
	if !h.opts.Color {
		return styledText(text)
	}
	return styledText(s + text + styleReset)
}

// line writes one line to stderr (through h.out). Every string argument
// is made safe first: the model and commands supply most of them, and
// none may act on the terminal (see safetext). Long lines are folded.
func (h *Human) line(format string, a ...any) {
	for i, v := range a {
		switch v := v.(type) {
		case string:
			a[i] = safetext.Fold(safetext.Line(v), safetext.DefaultWidth)
		case multiline:
			a[i] = safetext.Fold(safetext.Text(string(v)), safetext.DefaultWidth)
		}
	}
	fmt.Fprintf(&h.out, format, a...)
	h.out.WriteByte('\n')
}

// flush writes what a notice produced.
func (h *Human) flush() {
	if h.out.Len() > 0 {
		_, _ = h.stderr.Write(h.out.Bytes())
		h.out.Reset()
	}
}

func (h *Human) call(id string) *humanCall {
	c, ok := h.calls[id]
	if !ok {
		c = &humanCall{}
		h.calls[id] = c
	}
	return c
}

// flushPending shows a message that turned out not to be the last one.
func (h *Human) flushPending() {
	if h.pending == "" {
		return
	}
	h.line("%s %s", h.style(styleCyan, "agent:"), multiline(h.pending))
	h.pending = ""
}

// WriteHeader prints the session's header on stderr.
func (h *Human) WriteHeader(hd Header) {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.flush()
	verb := "session"
	if hd.Resumed {
		verb = "resumed session"
	}
	model := hd.Model
	if model == "" {
		model = "(provider default)"
	}
	if hd.Provider != "" {
		model += " via " + hd.Provider
	}
	network := "network off"
	switch {
	case hd.EgressProfile != "":
		network = "network through the egress proxy (profile " + hd.EgressProfile + "'s domains)"
	case hd.NetworkAccess:
		network = "network on"
	}
	h.line("%s %s", h.style(styleBold, verb), hd.SessionID)
	h.line("%s", h.style(styleDim, "  model      "+model))
	sb := hd.SandboxMode
	if sb == "workspace-write" || sb == "read-only" {
		sb += ", " + network
	}
	h.line("%s", h.style(styleDim, "  policy     approval "+hd.ApprovalPolicy+", sandbox "+sb))
	if hd.Bypassed {
		h.line("%s", h.style(styleRed, "  !! --dangerously-bypass-approvals-and-sandbox: every command runs unasked and unsandboxed"))
	}
	ws := "  workspace  " + hd.Workspace
	if len(hd.WritableRoots) > 0 {
		ws += " (also writable: " + strings.Join(hd.WritableRoots, ", ") + ")"
	}
	h.line("%s", h.style(styleDim, ws))
}

// startSpinner shows the progress line while the model works.
func (h *Human) startSpinner() {
	if !h.opts.Progress || h.spinning {
		return
	}
	h.spinning = true
	h.spinGen++
	h.spinFrom = time.Now()
	h.drawSpinner(0)
	go h.spin(h.spinGen)
}

// spin redraws the progress line until another notice stops it.
func (h *Human) spin(gen int) {
	t := time.NewTicker(120 * time.Millisecond)
	defer t.Stop()
	for i := 1; ; i++ {
		<-t.C
		h.mu.Lock()
		if !h.spinning || h.spinGen != gen {
			h.mu.Unlock()
			return
		}
		h.drawSpinner(i)
		h.flush()
		h.mu.Unlock()
	}
}

func (h *Human) drawSpinner(i int) {
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	fmt.Fprintf(&h.out, "\r\x1b[K%s", h.style(styleDim, fmt.Sprintf("%s model working %ds", frames[i%len(frames)], int(time.Since(h.spinFrom).Seconds()))))
}

// stopSpinner clears the progress line before anything else is printed.
func (h *Human) stopSpinner() {
	if !h.spinning {
		return
	}
	h.spinning = false
	h.out.WriteString("\r\x1b[K")
}

// Close stops the progress line.
func (h *Human) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopSpinner()
	h.flush()
}

// Notify renders one notice.
func (h *Human) Notify(n engine.Notice) {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.flush()
	switch n.Type {
	case engine.NoticeTextDelta, engine.NoticeReasoningDelta:
		// The model is still writing: the spinner stays.
	default:
		h.stopSpinner()
	}
	defer func() {
		// The model works after the turn starts and once every call of
		// its last answer is done.
		if n.Type == engine.NoticeTurnStarted || (n.Type == engine.NoticeCallCompleted && h.running == 0) {
			h.startSpinner()
		}
	}()
	switch n.Type {
	case engine.NoticeMessage:
		h.flushPending()
		h.pending = n.Text
	case engine.NoticeReasoning:
		if h.opts.Verbose && strings.TrimSpace(n.Text) != "" {
			h.line("%s", h.style(styleDim, "thinking: "+n.Text))
		}
	case engine.NoticeCallStarted:
		h.flushPending()
		h.callStarted(n)
	case engine.NoticeCallOutput:
		h.callOutput(n)
	case engine.NoticeCallCompleted:
		h.flushPending()
		h.callCompleted(n)
	case engine.NoticeTransition:
		h.flushPending()
		h.transition(n)
	case engine.NoticeApproval:
		h.flushPending()
		if a := n.Approval; a != nil && !h.opts.Prompted {
			h.line("%s call %s (%s, %s): %s", h.style(styleYellow, "approval needed:"), a.CallID, a.Kind, a.Phase, describe(a.Command, a.Paths))
			switch {
			case a.Reason != "" && n.Means.ModelJustification:
				h.line("  the model says (its words, not Docket's): %s", a.Reason)
			case a.Reason != "":
				h.line("  reason: %s", a.Reason)
			}
			switch {
			case n.Means.Unsandboxed:
				h.line("  %s", h.style(styleRed, "!! approving runs this WITHOUT THE SANDBOX"))
			case n.Means.RetryUnsandboxed:
				h.line("  %s", h.style(styleYellow, "!! approving also allows an unasked run WITHOUT THE SANDBOX if the sandbox blocks it"))
			}
		}
	case engine.NoticeNetwork:
		h.flushPending()
		h.network(n)
	case engine.NoticeParked:
		h.flushPending()
		h.line("%s session %s is waiting for a decision on call %s", h.style(styleYellow, "parked:"), n.SessionID, n.CallID)
		h.line("  continue with: docket resume %s --decisions approved", n.SessionID)
	case engine.NoticeTurnCompleted:
		final := n.Text
		if final == "" {
			final = h.pending
		}
		h.pending = ""
		if final != "" {
			// The model's words, on stdout: line breaks kept, anything
			// that could act on a terminal made visible.
			fmt.Fprintln(h.stdout, safetext.Text(final))
		}
		h.usage(n)
	case engine.NoticeTurnFailed:
		h.flushPending()
		h.line("%s %s", h.style(styleRed, "turn failed:"), n.Text)
		h.usage(n)
	case engine.NoticeError:
		h.flushPending()
		h.line("%s %s", h.style(styleRed, "error:"), n.Text)
	case engine.NoticeContextWarning:
		h.flushPending()
		if c := n.Context; c != nil {
			h.line("%s the conversation holds %s of the model's %d-token context window (%d%%)", h.style(styleYellow, "context:"),
				approx(c.Used, c.Estimated), c.Window, c.Percent())
		}
	case engine.NoticeCompacted:
		h.flushPending()
		if c := n.Context; c != nil {
			h.line("%s the conversation was replaced by the model's summary; it now holds %s", h.style(styleYellow, "compacted:"), approx(c.Used, c.Estimated))
		}
	}
}

// approx writes a token count, "about" when it is an estimate.
func approx(n int64, estimated bool) string {
	if estimated {
		return fmt.Sprintf("about %d tokens", n)
	}
	return fmt.Sprintf("%d tokens", n)
}

// usage prints the turn's token usage, when the model reported any.
func (h *Human) usage(n engine.Notice) {
	u := n.Usage
	if u.InputTokens == 0 && u.OutputTokens == 0 {
		return
	}
	line := fmt.Sprintf("tokens: %d in (%d cached), %d out", u.InputTokens, u.CachedInputTokens, u.OutputTokens)
	if u.ReasoningTokens > 0 {
		line += fmt.Sprintf(" (%d reasoning)", u.ReasoningTokens)
	}
	h.line("%s", h.style(styleDim, line))
}

func describe(command, paths []string) string {
	if len(command) > 0 {
		return ShellJoin(command)
	}
	return strings.Join(paths, ", ")
}

func (h *Human) callStarted(n engine.Notice) {
	c := h.call(n.CallID)
	if !c.started {
		c.started = true
		h.running++
	}
	h.flushPartial(n.CallID, c)
	var where styledText
	if c.sandboxed == "unsandboxed" {
		where = h.style(styleYellow, " [no sandbox]")
	}
	if n.Tool == engine.WriteStdinName {
		// A write to a process exec_command started: which, and what
		// (the model's arguments, shown safe).
		h.line("%s%s %s", h.style(styleBold, "stdin:"), where, n.Arguments)
		return
	}
	switch kindOf(n) {
	case ItemFileChange:
		parts := make([]string, len(n.Changes))
		for i, ch := range n.Changes {
			parts[i] = ch.Kind + " " + ch.Path
		}
		h.line("%s%s %s", h.style(styleBold, "patch:"), where, strings.Join(parts, ", "))
	case ItemMCPToolCall:
		h.line("%s%s %s.%s %s", h.style(styleBold, "mcp:"), where, n.Server, n.MCPTool, n.Arguments)
	case ItemCollabToolCall:
		// A subagent: its own calls follow, named NAME/CALL_ID.
		h.line("%s %s %s", h.style(styleBold, "subagent:"), n.CallID, n.Arguments)
	case ItemToolCall:
		h.line("%s%s %s %s", h.style(styleBold, "tool:"), where, n.Tool, n.Arguments)
	default:
		h.line("%s%s %s", h.style(styleBold, "exec:"), where, ShellJoin(n.Command))
		if h.opts.Verbose && n.Cwd != "" {
			h.line("%s", h.style(styleDim, "  in "+n.Cwd))
		}
	}
}

// prefix marks output lines; with several calls running it names the call.
func (h *Human) prefix(id string) string {
	if h.running > 1 {
		return "  [" + id + "] "
	}
	return "  "
}

// maxPartial bounds the unfinished line kept between output chunks: a
// longer line is shown in pieces (Fold would break it there anyway), so
// output without newlines costs neither quadratic time nor unbounded
// memory.
const maxPartial = 4 * safetext.DefaultWidth

// callOutput shows a chunk of a call's output, line by line. Each byte is
// looked at a bounded number of times: the chunk is scanned once, and only
// the unfinished last line (at most maxPartial bytes) is carried over.
func (h *Human) callOutput(n engine.Notice) {
	c := h.call(n.CallID)
	text := n.Text
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			room := maxPartial - len(c.partial)
			if len(text) < room {
				c.partial = append(c.partial, text...)
				return
			}
			cut := runeCut(text, room)
			c.partial = append(c.partial, text[:cut]...)
			text = text[cut:]
			h.flushPartial(n.CallID, c)
			continue
		}
		if len(c.partial) == 0 {
			h.outputLine(n.CallID, text[:i])
		} else {
			c.partial = append(c.partial, text[:i]...)
			h.flushPartial(n.CallID, c)
		}
		text = text[i+1:]
	}
}

// runeCut returns a cut point at most n bytes into s that does not split a
// UTF-8 sequence (unless s is not UTF-8 there), and at least 1.
func runeCut(s string, n int) int {
	if n <= 0 {
		n = 1
	}
	if n >= len(s) {
		return len(s)
	}
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}

// outputLine shows one line of output. A CR just before the newline is
// dropped (CRLF output is ordinary and that CR cannot hide anything); any
// other CR is made visible, since it is how one line is drawn over another.
func (h *Human) outputLine(id, l string) {
	l = strings.TrimSuffix(l, "\r")
	// Written directly rather than through line: this runs once per line
	// of output, and a plain short line then costs no allocation.
	if h.opts.Color {
		h.out.WriteString(styleDim)
	}
	h.out.WriteString(safetext.Line(h.prefix(id)))
	// Text, not Line: a tab in output (go test, ls -l) is harmless and
	// stays a tab; l holds no newline.
	h.out.WriteString(safetext.Fold(safetext.Text(l), safetext.DefaultWidth))
	if h.opts.Color {
		h.out.WriteString(styleReset)
	}
	h.out.WriteByte('\n')
}

// flushPartial shows the unfinished line of a call's output, if any.
func (h *Human) flushPartial(id string, c *humanCall) {
	if len(c.partial) > 0 {
		h.outputLine(id, string(c.partial))
		c.partial = c.partial[:0]
	}
}

func (h *Human) callCompleted(n engine.Notice) {
	c, ok := h.calls[n.CallID]
	interrupted := ok && c.interrupted
	if (!ok || !c.started) && n.Status != engine.StatusDeclined && !interrupted {
		// It never ran: say which call this is about.
		h.line("%s %s (%s)", h.style(styleBold, "call"), n.CallID, n.Tool)
	}
	if ok {
		h.flushPartial(n.CallID, c)
		if c.started {
			h.running--
		}
		delete(h.calls, n.CallID)
	}
	switch {
	case n.Status == engine.StatusDeclined:
		// The deny transition already said why.
	case kindOf(n) == ItemMCPToolCall && n.Status == engine.StatusFailed:
		h.line("  %s %s", h.style(styleRed, "failed:"), firstLine(n.Text))
	case kindOf(n) == ItemFileChange && n.Status == engine.StatusCompleted:
		h.line("  %s", h.style(styleGreen, "applied"))
	case kindOf(n) == ItemFileChange:
		h.line("  %s %s", h.style(styleRed, "failed:"), firstLine(n.Text))
	case kindOf(n) == ItemMCPToolCall:
		h.line("  %s", h.style(styleGreen, "ok"))
	case (kindOf(n) == ItemToolCall || kindOf(n) == ItemCollabToolCall) && n.Status != engine.StatusCompleted && n.Output != "":
		h.line("  %s %s", h.style(styleRed, "failed:"), firstLine(n.Output))
	case n.Process != nil && n.Process.Running:
		h.line("  %s", h.style(styleGreen, fmt.Sprintf("running, session %d", n.Process.ID)))
	case n.ExitCode == 0 && n.Status == engine.StatusCompleted:
		h.line("  %s", h.style(styleGreen, "exit 0"))
	case n.ExitCode >= 0:
		h.line("  %s", h.style(styleRed, fmt.Sprintf("exit %d", n.ExitCode)))
	case interrupted:
		// The interrupt transition already said why.
	default:
		h.line("  %s", h.style(styleRed, "failed"))
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func (h *Human) transition(n engine.Notice) {
	tr := n.Transition
	if tr == nil {
		return
	}
	if tr.To == "sandboxed" || tr.To == "unsandboxed" {
		h.call(tr.CallID).sandboxed = tr.To
	}
	if c, ok := h.calls[tr.CallID]; ok {
		h.flushPartial(tr.CallID, c)
	}
	switch {
	case h.opts.Verbose:
		h.line("%s", h.style(styleDim, fmt.Sprintf("call %s: %s -%s-> %s (%s): %s", tr.CallID, tr.From, tr.Event, tr.To, tr.Cause, tr.Reason)))
	case tr.Event == "interrupt":
		// A crash or an abort, not an ordinary failure: say so.
		h.call(tr.CallID).interrupted = true
		h.line("%s call %s: %s", h.style(styleYellow, "interrupted:"), tr.CallID, tr.Reason)
	case tr.To == "denied":
		h.line("%s %s (%s)", h.style(styleRed, "denied:"), tr.Reason, tr.Cause)
	case tr.To == "retryPrompt":
		h.line("%s %s", h.style(styleYellow, "sandbox denied:"), tr.Reason)
	case tr.To == "unsandboxed":
		h.line("%s %s (%s)", h.style(styleYellow, "running without the sandbox:"), tr.Reason, tr.Cause)
	}
}
