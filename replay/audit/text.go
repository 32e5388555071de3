package audit

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/sandbox/layers"
)

// NewTextWriter returns a Sink that writes the human-readable audit. With
// opts.UnsandboxedOnly it writes one entry per unsandboxed call with its
// one-line why; otherwise each call's transitions, approvals and runs.
func NewTextWriter(w io.Writer, opts Options) Sink {
	return &textWriter{w: w, brief: opts.UnsandboxedOnly, netOnly: opts.NetworkOnly}
}

type textWriter struct {
	w     io.Writer
	brief bool
	// netOnly lists the network records instead of the calls.
	netOnly bool
	n       int
	err     error
}

// printf writes one piece of the report. Every string argument is made
// safe first (safetext.Line): commands, reasons, paths and messages come
// from the model or from commands and must not act on the terminal.
func (t *textWriter) printf(format string, a ...any) {
	for i, v := range a {
		if s, ok := v.(string); ok {
			a[i] = safetext.Line(s)
		}
	}
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, a...)
	}
}

func (t *textWriter) Begin(h *Report) error {
	t.printf("session %s\n", orDash(h.SessionID))
	t.printf("journal %s\n", h.Journal)
	if pa := h.Parent; pa != nil {
		t.printf("parent  subagent %s of session %s (call %s): its approval requests were answered by that session's approver\n",
			safetext.Line(pa.Name), safetext.Line(pa.SessionID), safetext.Line(pa.CallID))
	}
	p := h.Policy
	t.printf("policy  approval %s, sandbox %s, network %s\n", orDash(p.ApprovalPolicy), orDash(p.SandboxMode), policyNetworkWords(p))
	if len(p.WritableRoots) > 0 {
		t.printf("        writable roots %s\n", strings.Join(p.WritableRoots, ", "))
	}
	if p.Bypassed {
		t.printf("        !! started with --dangerously-bypass-approvals-and-sandbox: no approvals, no sandbox\n")
	}
	if len(h.Rules.Files) == 0 {
		t.printf("rules   none\n")
	}
	for _, f := range h.Rules.Files {
		t.printf("rules   %s\n", f)
	}
	if h.Rules.Digest != "" {
		t.printf("        digest %s\n", h.Rules.Digest)
	}
	for _, hk := range h.HooksUntrusted {
		t.printf("hooks   did not run, not trusted by the user: %s\n", safetext.Line(hk))
	}
	return t.err
}

func (t *textWriter) Call(c *Call) error {
	t.n++
	if t.netOnly {
		return t.err
	}
	t.printf("\ncall %s  %s  %s\n", callName(c), orDash(c.Tool), quoteArgv(c.Command))
	if t.brief {
		t.printf("  why: %s\n", c.WhyUnsandboxed)
		return t.err
	}
	t.printf("  cwd      %s\n", orDash(c.Cwd))
	t.printf("  outcome  %s%s, final state %s\n", c.Outcome, exitNote(c.ExitCode), c.FinalState)
	if c.RanUnsandboxed {
		t.printf("  UNSANDBOXED because %s\n", c.WhyUnsandboxed)
	}
	if r := c.Refused; r != nil {
		t.printf("  REFUSED  seq %d: tool call %d of its response did not run: %s\n", r.Seq, r.Position+1, r.Reason)
	}
	t.printf("  transitions\n")
	if len(c.Transitions) == 0 {
		t.printf("    (none recorded)\n")
	}
	for _, tr := range c.Transitions {
		t.printf("    seq %-5d %s  %s --%s--> %s  [%s] %s\n", tr.Seq, tr.At, tr.From, tr.Event, tr.To, tr.Cause, tr.Reason)
	}
	t.hooks(c)
	t.approvals(c)
	t.runs(c)
	t.network(c)
	if len(c.Violations) > 0 {
		t.printf("  VIOLATIONS\n")
		for _, v := range c.Violations {
			t.printf("    %s\n", v)
		}
	}
	return t.err
}

// approvals lists requests and answers together, in journal order.
func (t *textWriter) approvals(c *Call) {
	if len(c.Requests) == 0 && len(c.Decisions) == 0 {
		return
	}
	type line struct {
		seq  uint64
		text string
	}
	var lines []line
	for _, r := range c.Requests {
		lines = append(lines, line{r.Seq, fmt.Sprintf("asked     %-7s %s (%s)", r.Phase, r.At, orDash(r.Reason))})
	}
	for _, d := range c.Decisions {
		text := fmt.Sprintf("answered  %-7s %s: %s by %s", d.Phase, d.At, d.Decision, whoDecided(&d))
		if len(d.Amendment) > 0 {
			text += ", rule prefix " + tokens(d.Amendment)
		}
		if d.Feedback != "" {
			text += ", feedback: " + d.Feedback
		}
		lines = append(lines, line{d.Seq, text})
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].seq < lines[j].seq })
	t.printf("  approvals\n")
	for _, l := range lines {
		t.printf("    seq %-5d %s\n", l.seq, l.text)
	}
}

// hooks lists the hooks' verdicts on the call.
func (t *textWriter) hooks(c *Call) {
	if len(c.Hooks) == 0 {
		return
	}
	t.printf("  hooks\n")
	for _, h := range c.Hooks {
		text := fmt.Sprintf("%-9s %s %s (sandbox %s, exit %d, %d ms)", h.Stage, h.Name, h.Decision, h.Sandbox, h.ExitCode, h.DurationMs)
		if h.Error != "" {
			text += ": FAILED " + h.Error + ", on_error " + h.Decision
		} else if h.Reason != "" {
			text += ": " + h.Reason
		}
		t.printf("    seq %-5d %s\n", h.Seq, text)
	}
}

func (t *textWriter) runs(c *Call) {
	if len(c.Attempts) == 0 {
		return
	}
	t.printf("  runs\n")
	for _, at := range c.Attempts {
		where := "no write-ahead record"
		if at.Seq > 0 {
			where = fmt.Sprintf("seq %d", at.Seq)
		}
		t.printf("    attempt %d (%s): %s -> %s\n", at.Attempt, where, sandboxNote(at.Sandbox), resultNote(at))
		if sb := at.Sandbox; sb != nil {
			for _, l := range sb.InForce {
				t.printf("      %s %s\n", l.Layer, l.Words)
			}
			for _, l := range sb.Limits {
				t.printf("      %s %s\n", l.Layer, l.Words)
			}
			for _, l := range sb.Missing {
				t.printf("      MISSING %s: %s\n", l.Layer, l.Words)
			}
		}
		for _, f := range at.Fallbacks {
			t.printf("      fell back before the command existed: %s\n", f)
		}
		if d := at.Denial; d != nil {
			t.printf("      denied by the sandbox: %s", denialSummary(d))
			if d.Reason != "" && !strings.Contains(denialSummary(d), d.Reason) {
				t.printf(" (%s)", d.Reason)
			}
			if d.Message != "" {
				t.printf(": %s", firstLine(d.Message))
			}
			t.printf("\n")
		}
	}
}

func (t *textWriter) End(r *Report) error {
	if t.netOnly {
		t.networkReport(r)
		return t.err
	}
	if t.brief && t.n == 0 {
		if d := r.Damaged; d.Incomplete() {
			// Never vouch for records that could not be read.
			t.printf("\nno call ran without a sandbox among the %d of %d records that could be read; the audit is INCOMPLETE\n", d.Read, d.Last)
		} else {
			t.printf("\nno call ran without a sandbox\n")
		}
	}
	if len(r.Amendments) > 0 {
		t.printf("\nrules saved during the session\n")
		for _, a := range r.Amendments {
			t.printf("  seq %d, call %s: %s%s\n", a.Seq, a.CallID, orDash(a.Line), inFile(a.File))
		}
	}
	t.processes(r.Processes)
	if n := len(r.Violations); n > 0 {
		t.printf("\n%d invariant violation(s)\n", n)
		for _, v := range r.Violations {
			t.printf("  call %s, seq %d: %s\n", v.CallID, v.Seq, v.Message)
		}
	}
	if d := r.Damaged; d.Incomplete() {
		t.printf("\nDAMAGED: the journal cannot be read after seq %d (%s); every readable record was audited\n", d.LastGoodSeq, d.Error)
		t.printf("  journal %s: read %d of %d records; INCOMPLETE: not read:\n", r.Journal, d.Read, d.Last)
		for _, g := range d.Unread {
			t.printf("    %s\n", g)
		}
	} else if d != nil {
		t.printf("\nDAMAGED: journal %s is damaged (%s), but every one of its %d records was read\n", r.Journal, d.Error, d.Last)
	}
	return t.err
}

func sandboxNote(s *Sandbox) string {
	if s == nil {
		return "sandbox unknown"
	}
	if s.Mode == events.SandboxNone {
		if len(s.Layers) > 0 {
			// What held the run's processes (tree-kill:cgroup-v2), no
			// more: without a sandbox a process may leave it.
			var notes []string
			for _, l := range s.Layers {
				notes = append(notes, l+layers.TreeKillCaveat(l))
			}
			return "NO SANDBOX (" + strings.Join(notes, "; ") + ")"
		}
		return "NO SANDBOX"
	}
	layers := "no layers reported"
	if len(s.Layers) > 0 {
		layers = "layers " + strings.Join(s.Layers, " ")
	}
	return fmt.Sprintf("sandbox %s, %s, network %s", s.Mode, layers, networkWords(s.Network, s.Egress))
}

func resultNote(at Attempt) string {
	switch {
	case at.SandboxError != "":
		return "sandbox could not be set up: " + firstLine(at.SandboxError)
	case at.Error != "":
		return "could not start: " + firstLine(at.Error)
	case at.OutcomeSeq == 0 && at.Sandbox != nil && at.Sandbox.Mode == events.SandboxNone:
		// Started without the sandbox and never finished: docket stopped
		// while it ran, and only the command got the parent-death signal.
		return "no outcome recorded: docket stopped while it ran without the sandbox; processes it started in the background may have outlived docket"
	case at.OutcomeSeq == 0:
		return "no outcome recorded"
	}
	s := "exit " + fmt.Sprint(deref(at.ExitCode))
	if at.Signal != "" {
		s += ", signal " + at.Signal
	}
	if at.TimedOut {
		s += ", timed out"
	}
	if at.Killed != "" {
		s += ", killed: " + strings.ReplaceAll(at.Killed, "_", " ")
	}
	return s + fmt.Sprintf(" in %s (seq %d)", time.Duration(at.DurationMs)*time.Millisecond, at.OutcomeSeq)
}

func exitNote(code *int) string {
	if code == nil {
		return ""
	}
	return fmt.Sprintf(" (exit %d)", *code)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func inFile(f string) string {
	if f == "" {
		return ""
	}
	return " in " + f
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// quoteArgv renders argv as a shell would read it back.
func quoteArgv(argv []string) string {
	if len(argv) == 0 {
		return "-"
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		if safetext.Line(a) != a {
			// Control characters, bidi overrides, invisible runes:
			// $'…' with them escaped, still read back exactly.
			out[i] = safetext.Quote(a)
			continue
		}
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// callName names a call; a refused call may have no id.
func callName(c *Call) string {
	if c.CallID == "" && c.Refused != nil {
		return fmt.Sprintf("(no id, tool call %d of its response)", c.Refused.Position+1)
	}
	return c.CallID
}

// networkWords says how a run reached the network: on, off, only
// through the session's egress proxy, or, for a record that says both on
// and egress, that the record is inconsistent (never the proxy's
// filtering it cannot vouch for).
func networkWords(on, egress bool) string { return events.NetworkWords(on, egress) }

// policyNetworkWords says how the session's commands reach the network:
// the configuration's network access is on under an egress plan too, so
// the plan decides between the proxy and a direct network, and a plan
// that says both is named inconsistent.
func policyNetworkWords(p Policy) string {
	if p.NetworkInconsistent {
		return events.NetworkWordsInconsistent
	}
	return networkWords(p.NetworkAccess && !p.EgressProxy, p.EgressProxy)
}
