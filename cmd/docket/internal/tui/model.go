package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// Options configure the UI.
type Options struct {
	// Color allows ANSI colours and the styled markdown renderer.
	Color bool
	// Prompt, when set, is sent as the first turn (docket chat PROMPT).
	Prompt string
	// History is the prompt history; nil keeps it in memory only.
	History History
	// Width and Height are the terminal's size until the first resize
	// message (tests; a program gets one at start).
	Width, Height int
}

// turnDoneMsg ends a turn the UI started.
type turnDoneMsg struct {
	res engine.TurnResult
	err error
}

// infoMsg and errMsg print a line of the UI's own; pagerMsg opens a pager;
// switchedMsg follows /new and /resume.
type (
	infoMsg  string
	errMsg   struct{ err error }
	pagerMsg struct {
		title, text string
		// diff: text is a unified diff, coloured by line when colour is on.
		diff bool
	}
	switchedMsg struct {
		what    string
		pending bool
		// resumed: another recorded session is now current; its earlier
		// conversation is shown first.
		resumed bool
	}
)

// Model is the Bubble Tea model of an interactive session.
type Model struct {
	ctx     context.Context
	backend Backend
	opts    Options
	info    Info
	md      *markdown

	width, height int
	input         textarea.Model

	// blocks is the live part of the transcript: the turn in progress.
	blocks []*block
	calls  map[string]*callView

	running bool
	cancel  context.CancelFunc
	// interrupting: Ctrl-C was pressed during this turn; another quits.
	interrupting bool
	// armed: Ctrl-C cleared the input while idle; another quits.
	armed bool
	// compacting: a /compact the person asked for ran since the last
	// turn started; the engine's compaction notice, which may arrive after
	// the command's own result, is then not announced as automatic (an
	// automatic compaction happens only inside a turn).
	compacting bool
	quitting   bool

	overlays []*overlay
	pager    *pager
	comp     *completion

	// queued are prompts typed while a turn ran, sent in order after it.
	queued []string
	// deferred holds what was printed while a pager had the alternate
	// screen (Bubble Tea prints nothing there); it goes out on close.
	deferred []string

	// pastes are the long pastes collapsed into notes in the input.
	pastes []paste

	history    []string
	historyPos int // len(history) when not walking it
	draft      string
}

// New builds the model. ctx bounds every turn and command it starts.
func New(ctx context.Context, b Backend, opts Options) *Model {
	ta := textarea.New()
	ta.Prompt = "› "
	ta.Placeholder = "Ask Docket to do something; /help for commands"
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.SetHeight(1)
	ta.MaxHeight = 8
	ta.FocusedStyle.CursorLine = lipgloss.NewStyle()
	ta.FocusedStyle.Base = lipgloss.NewStyle()
	ta.BlurredStyle = ta.FocusedStyle
	ta.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.Focus()
	w, h := opts.Width, opts.Height
	if w <= 0 {
		w = 80
	}
	if h <= 0 {
		h = 24
	}
	m := &Model{ctx: ctx, backend: b, opts: opts, input: ta, calls: map[string]*callView{},
		md: newMarkdown(opts.Color), width: w, height: h}
	m.input.SetWidth(w)
	if opts.History != nil {
		m.history = append(m.history, opts.History.Entries()...)
	}
	m.historyPos = len(m.history)
	m.info = b.Info()
	return m
}

// Init starts the first turn: the pending one of a resumed session, or
// the prompt given on the command line.
func (m *Model) Init() tea.Cmd {
	earlier := m.printTranscript()
	switch {
	case m.backend.Pending():
		return tea.Sequence(earlier, m.startContinue())
	case strings.TrimSpace(m.opts.Prompt) != "":
		return tea.Sequence(earlier, m.submitPrompt(m.opts.Prompt))
	}
	return earlier
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(msg.Width)
		m.input.SetHeight(m.inputRows())
		if m.pager != nil {
			m.pager.resize(msg.Width, msg.Height)
		}
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	case noticesMsg:
		for _, n := range msg {
			m.notice(n)
		}
		return m, m.flushFinished(false)
	case approvalMsg:
		m.overlays = append(m.overlays, newOverlay(msg.req, msg.reply))
		return m, nil
	case approvalGoneMsg:
		for i, o := range m.overlays {
			if o.req.RequestID == msg.requestID {
				m.overlays = append(m.overlays[:i], m.overlays[i+1:]...)
				break
			}
		}
		return m, nil
	case turnDoneMsg:
		return m, m.turnDone(msg)
	case compactedMsg:
		m.running, m.interrupting = false, false
		m.cancel()
		m.cancel = nil
		m.info = m.backend.Info()
		return m, m.print(m.renderInfo("conversation compacted; the model goes on from this summary:\n" + msg.summary))
	case infoMsg:
		return m, m.print(m.renderInfo(string(msg)))
	case sessionsMsg:
		return m, m.resumePicker(msg)
	case permissionsMsg:
		return m, m.permissionsPicker(msg)
	case errMsg:
		return m, m.print(m.renderError(msg.err.Error()))
	case pagerMsg:
		text := msg.text
		if msg.diff && m.opts.Color {
			text = colorDiff(text)
		}
		m.pager = newPager(msg.title, text, m.width, m.height)
		return m, tea.EnterAltScreen
	case switchedMsg:
		m.info = m.backend.Info()
		cmd := m.print(m.renderInfo(msg.what))
		if msg.resumed {
			cmd = tea.Sequence(m.printTranscript(), cmd)
		}
		if msg.pending {
			return m, tea.Sequence(cmd, m.startContinue())
		}
		return m, cmd
	}
	if m.pager != nil {
		return m, m.pager.update(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// key handles a keystroke: the pager first, then an approval overlay,
// then the input.
func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
		return m.interrupt()
	}
	m.armed = false
	if m.pager != nil {
		if m.pager.closes(k) {
			return m, m.closePager()
		}
		return m, m.pager.update(k)
	}
	if len(m.overlays) > 0 {
		return m.overlayKey(k)
	}
	if m.comp != nil {
		if handled, cmd := m.completionKey(k); handled {
			return m, cmd
		}
	}
	if k.Paste && k.Type == tea.KeyRunes {
		text := m.collapsePaste(string(k.Runes))
		m.editInput(func() { m.input.InsertString(text) })
		m.refreshCompletion()
		return m, nil
	}
	switch k.Type {
	case tea.KeyEsc:
		// As in Codex: Esc interrupts the running turn. Unlike Ctrl-C it
		// never quits, so a second Esc does nothing.
		if m.running && !m.interrupting {
			return m.interrupt()
		}
	case tea.KeyCtrlD:
		if m.input.Value() == "" && !m.running {
			return m.quit()
		}
	case tea.KeyEnter:
		if k.Alt {
			break // Alt-Enter is a newline (the textarea's key map says so)
		}
		text := m.input.Value()
		if strings.TrimSpace(text) == "" {
			return m, nil
		}
		if m.running && !strings.HasPrefix(strings.TrimSpace(text), "/") {
			// As Codex does: a prompt typed during a turn waits for its end.
			m.queued = append(m.queued, text)
			m.input.Reset()
			m.input.SetHeight(1)
			m.comp = nil
			return m, m.print(m.renderInfo("queued; sent when the turn ends (Ctrl-C interrupts the turn and drops the queue)"))
		}
		m.input.Reset()
		m.input.SetHeight(1)
		m.historyPos = len(m.history)
		m.comp = nil
		return m, m.submit(text)
	case tea.KeyUp:
		if !strings.Contains(m.input.Value(), "\n") && m.historyPos > 0 {
			if m.historyPos == len(m.history) {
				m.draft = m.input.Value()
			}
			m.historyPos--
			m.editInput(func() { m.input.SetValue(m.history[m.historyPos]) })
			return m, nil
		}
	case tea.KeyDown:
		if !strings.Contains(m.input.Value(), "\n") && m.historyPos < len(m.history) {
			m.historyPos++
			m.editInput(func() {
				if m.historyPos == len(m.history) {
					m.input.SetValue(m.draft)
				} else {
					m.input.SetValue(m.history[m.historyPos])
				}
			})
			return m, nil
		}
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.editInput(func() { m.input, cmd = m.input.Update(k) })
	if m.input.Value() != before {
		m.refreshCompletion()
	}
	return m, cmd
}

// editInput applies an edit to the input at its tallest, then fits the
// height to the text. The textarea scrolls its view to keep the cursor
// in it: at one line tall, the newline of Alt-Enter (or a pasted or
// recalled multi-line prompt, or a long line wrapping) scrolled the first
// line out, and growing the box afterwards did not scroll it back.
func (m *Model) editInput(edit func()) {
	m.input.SetHeight(m.input.MaxHeight)
	edit()
	m.input.SetHeight(m.inputRows())
}

// inputRows is how many rows the input's text takes, its long lines
// wrapped at the textarea's width, bounded by its maximum height.
func (m *Model) inputRows() int {
	w := max(m.input.Width(), 1)
	rows := 0
	for _, l := range strings.Split(m.input.Value(), "\n") {
		// Word-wrapped as the textarea wraps; a full last row puts the
		// cursor on one more.
		wrapped := strings.Split(ansi.Wrap(l, w, ""), "\n")
		rows += len(wrapped)
		if ansi.StringWidth(wrapped[len(wrapped)-1]) >= w {
			rows++
		}
	}
	return min(max(rows, 1), m.input.MaxHeight)
}

// interrupt is Ctrl-C: it interrupts the running turn (the engine records
// the calls it stops as cancelled, never as a denial); pressed again, or
// with nothing running and nothing typed, it quits.
func (m *Model) interrupt() (tea.Model, tea.Cmd) {
	switch {
	case m.running && !m.interrupting:
		m.interrupting = true
		m.cancel()
		return m, m.print(m.renderInfo("interrupting the turn (Ctrl-C again quits)"))
	case m.running:
		return m.quit()
	case m.pager != nil:
		return m, m.closePager()
	case m.input.Value() != "" && !m.armed:
		m.input.Reset()
		m.armed = true
		return m, nil
	}
	return m.quit()
}

// quit ends the program; a running turn is cancelled first, so the
// journal records where it stopped and the session can be resumed.
func (m *Model) quit() (tea.Model, tea.Cmd) {
	if m.cancel != nil {
		m.cancel()
	}
	m.quitting = true
	m.overlays = nil
	msg := fmt.Sprintf("session %s is journaled; continue it with: docket chat --resume %s", m.info.SessionID, m.info.SessionID)
	return m, tea.Sequence(m.flushFinished(true), m.print(m.renderInfo(msg)), tea.Quit)
}

// submit sends what was typed: a slash command or a prompt.
// The history keeps the prompt with its pastes expanded, so that it can
// be recalled in a later session.
func (m *Model) submit(text string) tea.Cmd {
	trimmed := strings.TrimSpace(text)
	full := m.expandPastes(text)
	if len(m.history) == 0 || m.history[len(m.history)-1] != full {
		m.history = append(m.history, full)
		m.historyPos = len(m.history)
		if m.opts.History != nil {
			if err := m.opts.History.Add(full); err != nil {
				return tea.Batch(m.slashOrPrompt(trimmed, text), m.print(m.renderError("prompt history: "+err.Error())))
			}
		}
	}
	return m.slashOrPrompt(trimmed, text)
}

func (m *Model) slashOrPrompt(trimmed, text string) tea.Cmd {
	if strings.HasPrefix(trimmed, "/") {
		return m.slash(trimmed)
	}
	if ia, ok := m.backend.(ImageAttacher); ok {
		if path, isImage, err := ia.AttachImage(trimmed); isImage {
			if err != nil {
				return m.print(m.renderError("image " + path + ": " + err.Error()))
			}
			return m.print(m.renderInfo("image " + path + " attached to your next prompt"))
		}
	}
	return m.submitPrompt(text)
}

// submitPrompt prints the prompt and starts its turn. A long paste is
// echoed as its note; the model gets the whole text.
func (m *Model) submitPrompt(text string) tea.Cmd {
	shown := text
	text = m.expandPastes(text)
	ctx, cancel := context.WithCancel(m.ctx)
	m.running, m.cancel, m.interrupting, m.compacting = true, cancel, false, false
	b := m.backend
	run := func() tea.Msg {
		res, err := b.Turn(ctx, text)
		return turnDoneMsg{res: res, err: err}
	}
	return tea.Sequence(m.print(m.renderUser(shown)), run)
}

// startContinue finishes a resumed session's pending turn.
func (m *Model) startContinue() tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.running, m.cancel, m.interrupting, m.compacting = true, cancel, false, false
	b := m.backend
	return tea.Sequence(m.print(m.renderInfo("finishing the session's unfinished turn")), func() tea.Msg {
		res, err := b.Continue(ctx)
		return turnDoneMsg{res: res, err: err}
	})
}

// turnDone closes the turn: the live blocks go to the scrollback and the
// way it ended is said unless it completed.
func (m *Model) turnDone(d turnDoneMsg) tea.Cmd {
	m.running = false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	interrupted := m.interrupting
	m.interrupting = false
	m.overlays = nil
	m.info = m.backend.Info()
	cmds := []tea.Cmd{m.flushFinished(true)}
	switch {
	case d.err != nil:
		cmds = append(cmds, m.print(m.renderError("turn: "+d.err.Error())))
	case d.res.Status == events.TurnCompleted:
	case d.res.Status == events.TurnParked:
		cmds = append(cmds, m.print(m.renderInfo("the turn is parked waiting for an approval; /resume "+m.info.SessionID+" asks again")))
	case interrupted:
		cmds = append(cmds, m.print(m.renderInfo("turn interrupted: "+d.res.Message+"; the session goes on with your next prompt")))
	default:
		cmds = append(cmds, m.print(m.renderError(fmt.Sprintf("turn %s: %s", d.res.Status, d.res.Message))))
	}
	if m.quitting {
		return tea.Sequence(append(cmds, tea.Quit)...)
	}
	if len(m.queued) > 0 && (d.err != nil || d.res.Status != events.TurnCompleted) {
		cmds = append(cmds, m.print(m.renderInfo(fmt.Sprintf("%d queued prompts dropped: the turn did not complete", len(m.queued)))))
		m.queued = nil
	}
	if len(m.queued) > 0 {
		next := m.queued[0]
		m.queued = m.queued[1:]
		cmds = append(cmds, m.submit(next))
	}
	return tea.Sequence(cmds...)
}

// notice folds one engine notice into the live transcript.
func (m *Model) notice(n engine.Notice) {
	switch n.Type {
	case engine.NoticeTextDelta:
		if b := m.lastAssistant(); b != nil {
			b.text += n.Text
			return
		}
		m.blocks = append(m.blocks, &block{kind: blockAssistant, text: n.Text})
	case engine.NoticeMessage:
		if b := m.lastAssistant(); b != nil {
			b.text, b.finished = n.Text, true
			return
		}
		m.blocks = append(m.blocks, &block{kind: blockAssistant, text: n.Text, finished: true})
	case engine.NoticeReasoningDelta:
		if b := m.lastOpen(blockReasoning); b != nil {
			b.text += n.Text
			return
		}
		m.blocks = append(m.blocks, &block{kind: blockReasoning, text: n.Text})
	case engine.NoticeReasoning:
		if b := m.lastOpen(blockReasoning); b != nil {
			b.text, b.finished = n.Text, true
			return
		}
		if strings.TrimSpace(n.Text) != "" {
			m.blocks = append(m.blocks, &block{kind: blockReasoning, text: n.Text, finished: true})
		}
	case engine.NoticeTransition:
		c := m.call(n.CallID)
		if n.Transition != nil {
			c.state, c.cause = states.State(n.Transition.To), n.Transition.Cause
			if c.state == states.RetryPrompt {
				c.retry = true
			}
		}
	case engine.NoticeApproval:
		c := m.call(n.CallID)
		if n.Approval != nil && len(c.command) == 0 {
			c.command = n.Approval.Command
		}
	case engine.NoticeCallStarted:
		c := m.call(n.CallID)
		c.tool, c.command, c.changes, c.server, c.mcpTool = n.Tool, n.Command, n.Changes, n.Server, n.MCPTool
	case engine.NoticeCallOutput:
		m.call(n.CallID).addOutput(n.Text)
	case engine.NoticeCallCompleted:
		c := m.call(n.CallID)
		c.tool, c.status, c.exit, c.done = n.Tool, n.Status, n.ExitCode, true
		if len(n.Command) > 0 {
			c.command = n.Command
		}
		if len(n.Changes) > 0 {
			c.changes = n.Changes
		}
		c.setAggregated(n.Text)
		m.finishCall(c)
	case engine.NoticeParked:
		m.blocks = append(m.blocks, &block{kind: blockInfo, text: "call " + n.CallID + " is parked waiting for an approval", finished: true})
	case engine.NoticeError:
		m.blocks = append(m.blocks, &block{kind: blockError, text: n.Text, finished: true})
	case engine.NoticeTurnFailed:
		m.finishAll()
	case engine.NoticeContextWarning:
		if n.Context != nil {
			m.blocks = append(m.blocks, &block{kind: blockInfo, finished: true,
				text: fmt.Sprintf("the context window is %d%% full; /compact summarises the conversation to free it", n.Context.Percent())})
		}
	case engine.NoticeNetwork:
		if text := networkLine(n); text != "" {
			m.blocks = append(m.blocks, &block{kind: blockInfo, text: text, finished: true})
		}
	case engine.NoticeCompacted:
		if m.compacting {
			return // cmdCompact announced it, and compactedMsg shows the summary
		}
		m.blocks = append(m.blocks, &block{kind: blockInfo, finished: true, text: "the conversation was compacted automatically; the model goes on from its summary"})
	}
}

func (m *Model) lastAssistant() *block { return m.lastOpen(blockAssistant) }

// lastOpen returns the last live block if it is of kind k and still
// streaming.
func (m *Model) lastOpen(k blockKind) *block {
	if len(m.blocks) == 0 {
		return nil
	}
	b := m.blocks[len(m.blocks)-1]
	if b.kind == k && !b.finished {
		return b
	}
	return nil
}

// call returns the view of a call, adding its block on first sight.
func (m *Model) call(id string) *callView {
	if c, ok := m.calls[id]; ok {
		return c
	}
	c := &callView{id: id}
	m.calls[id] = c
	m.blocks = append(m.blocks, &block{kind: blockCall, call: c})
	return c
}

func (m *Model) finishCall(c *callView) {
	for _, b := range m.blocks {
		if b.call == c {
			b.finished = true
		}
	}
}

// finishAll marks every live block finished (the turn ended).
func (m *Model) finishAll() {
	for _, b := range m.blocks {
		b.finished = true
	}
}

// flushFinished prints the finished blocks at the head of the live part
// into the scrollback and forgets them; with all, every live block goes.
func (m *Model) flushFinished(all bool) tea.Cmd {
	if all {
		m.finishAll()
	}
	n := 0
	for n < len(m.blocks) && m.blocks[n].finished {
		n++
	}
	if n == 0 {
		return nil
	}
	parts := make([]string, 0, n)
	for _, b := range m.blocks[:n] {
		parts = append(parts, m.renderBlock(b))
		if b.call != nil {
			delete(m.calls, b.call.id)
		}
	}
	m.blocks = append(m.blocks[:0], m.blocks[n:]...)
	return m.print(strings.Join(parts, "\n"))
}

// print puts finished text into the scrollback, above the live part.
func (m *Model) print(s string) tea.Cmd {
	if s == "" {
		return nil
	}
	if m.pager != nil {
		m.deferred = append(m.deferred, s)
		return nil
	}
	return tea.Println(m.fit(s))
}

// fit makes lines wider than the screen erase the rest of the last row
// they wrap onto. Bubble Tea erases the rest of a printed row only when
// the line is narrower than the screen, so a longer one (the resume hint
// on quit, the interrupt notice, any long notice) left the tail of the
// status line it overwrote on its wrapped row, in the scrollback for
// good. The line itself is left to the terminal's soft wrap, so that
// copying it (a session id, a command) gives it whole. A line that
// fills its last row exactly needs nothing, and an erase there would
// take its last character.
func (m *Model) fit(s string) string {
	if m.width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > m.width && w%m.width != 0 {
			lines[i] = l + ansi.EraseLineRight
		}
	}
	return strings.Join(lines, "\n")
}

// closePager leaves the alternate screen and prints what waited for it.
func (m *Model) closePager() tea.Cmd {
	m.pager = nil
	cmds := []tea.Cmd{tea.ExitAltScreen}
	if len(m.deferred) > 0 {
		cmds = append(cmds, tea.Println(m.fit(strings.Join(m.deferred, "\n"))))
		m.deferred = nil
	}
	return tea.Sequence(cmds...)
}

// textinputModel is the feedback line of a "deny and tell the model why".
func newFeedbackInput() textinput.Model {
	ti := textinput.New()
	ti.Prompt = "tell the model why (Enter to send, Esc to go back): "
	ti.CharLimit = 2000
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Focus()
	return ti
}
