package audit

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/docket-engine/docket/events/safetext"
)

// NewHTMLWriter returns a Sink that writes a self-contained HTML page
// (inline CSS and SVG, no scripts, no external assets): a header with the
// policy and rules in force, then for each call a timeline and the state
// machine with the path the call took highlighted. The page is well-formed
// XML as well as HTML, so tools can parse it with encoding/xml.
func NewHTMLWriter(w io.Writer) Sink { return &htmlWriter{w: w} }

type htmlWriter struct {
	w   io.Writer
	n   int
	err error
}

// pageCSS must hold no '<' or '&': the page is also XML.
const pageCSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1d2330;background:#fbfbfd}
h1{font-size:1.4em}h2{font-size:1.1em;margin:0 0 .4em}
code,.mono{font-family:ui-monospace,Menlo,monospace;font-size:.92em}
dl.head{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dl.head dt{font-weight:600}
section.call{background:#fff;border:1px solid #d8dce6;border-radius:8px;padding:1em 1.2em;margin:1.2em 0}
section.call.unsandboxed{border-left:6px solid #d9480f}
section.event{background:#f4f6fb;border:1px dashed #b8c0d6;border-radius:8px;padding:.6em 1.2em;margin:1.2em 0}
pre.summary-text{white-space:pre-wrap;margin:.4em 0}li.attachment.truncated{color:#862e2e}
.summary{margin:.2em 0}.why{margin:.4em 0;padding:.4em .6em;background:#fff4e6;border-radius:4px}
.violation{margin:.3em 0;padding:.4em .6em;background:#ffe3e3;color:#862e2e;border-radius:4px}
.cols{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}
ol.timeline{list-style:none;margin:0;padding:0 0 0 1em;border-left:2px solid #c5cbe0;min-width:24em;max-width:46em}
ol.timeline li{margin:.35em 0;position:relative}
ol.timeline li::before{content:"";position:absolute;left:-1.42em;top:.45em;width:.6em;height:.6em;border-radius:50%;background:#8b95b0}
ol.timeline li.transition::before{background:#3b5bdb}ol.timeline li.decision::before{background:#e8590c}
ol.timeline li.run::before{background:#2b8a3e}ol.timeline li.denial::before{background:#c92a2a}
ol.timeline li.network.allowed::before{background:#0b7285}ol.timeline li.network.refused::before{background:#862e2e}
table.network{border-collapse:collapse;font-size:.9em}table.network td,table.network th{border:1px solid #d8dce6;padding:.2em .5em;text-align:left}
table.network tr.refused td{background:#fff5f5}
.seq{color:#6b7386;font-size:.85em;margin-right:.4em}.at{color:#6b7386;font-size:.85em;margin-right:.4em}
.cause{font-weight:600}
ul.layers{margin:.2em 0;padding-left:1.2em;font-size:.88em;color:#3d4455}ol.timeline ul.layers li::before{content:none}
ul.layers li.missing{color:#862e2e}
svg.fsm{max-width:100%;height:auto;background:#fff}
svg.fsm .edge path{fill:none;stroke:#c3c8d4;stroke-width:1.3}
svg.fsm .edge text{font-size:11px;fill:#9aa1b2}
svg.fsm .edge.hl path{stroke:#d9480f;stroke-width:3.2}
svg.fsm .edge.hl text{fill:#d9480f;font-weight:700}
svg.fsm .tip-a{fill:#c3c8d4}svg.fsm .tip-h{fill:#d9480f}
svg.fsm .state rect{fill:#f1f3f8;stroke:#9aa1b2;stroke-width:1.2}
svg.fsm .state text{font-size:13px;text-anchor:middle;fill:#4a5163}
svg.fsm .state.visited rect{fill:#fff0e6;stroke:#d9480f;stroke-width:2.4}
svg.fsm .state.visited text{fill:#1d2330;font-weight:600}
svg.fsm .state.final rect{stroke-width:4}
`

func (h *htmlWriter) put(format string, a ...any) {
	if h.err == nil {
		_, h.err = fmt.Fprintf(h.w, format, a...)
	}
}

func (h *htmlWriter) Begin(r *Report) error {
	h.put("<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\"><head><meta charset=\"utf-8\"/>")
	h.put("<title>Docket audit of session %s</title><style>%s</style></head>\n<body>\n", esc(r.SessionID), pageCSS)
	h.put("<h1>Audit of session <code>%s</code></h1>\n<dl class=\"head\">", esc(orDash(r.SessionID)))
	h.put("<dt>journal</dt><dd><code>%s</code></dd>", esc(r.Journal))
	p := r.Policy
	h.put("<dt>approval policy</dt><dd>%s</dd><dt>sandbox mode</dt><dd>%s</dd><dt>network</dt><dd>%s</dd>",
		esc(orDash(p.ApprovalPolicy)), esc(orDash(p.SandboxMode)), policyNetworkWords(p))
	if len(p.WritableRoots) > 0 {
		h.put("<dt>writable roots</dt><dd><code>%s</code></dd>", esc(strings.Join(p.WritableRoots, ", ")))
	}
	files := "none"
	if len(r.Rules.Files) > 0 {
		files = strings.Join(r.Rules.Files, ", ")
	}
	h.put("<dt>rules</dt><dd><code>%s</code></dd>", esc(files))
	if r.Rules.Digest != "" {
		h.put("<dt>rules digest</dt><dd><code>%s</code></dd>", esc(r.Rules.Digest))
	}
	h.put("</dl>\n")
	return h.err
}

func (h *htmlWriter) Call(c *Call) error {
	h.n++
	class := "call"
	if c.RanUnsandboxed {
		class += " unsandboxed"
	}
	h.put("<section class=\"%s\" id=\"call-%d\" data-call=\"%s\">\n", class, h.n, esc(c.CallID))
	h.put("<h2>%s · %s · <code>%s</code></h2>\n", esc(c.CallID), esc(orDash(c.Tool)), esc(quoteArgv(c.Command)))
	h.put("<p class=\"summary outcome-%s\">%s%s; final state <b>%s</b>; cwd <code>%s</code></p>\n",
		esc(c.Outcome), esc(c.Outcome), esc(exitNote(c.ExitCode)), esc(c.FinalState), esc(orDash(c.Cwd)))
	if c.RanUnsandboxed {
		h.put("<p class=\"why\">Ran without a sandbox because %s</p>\n", esc(c.WhyUnsandboxed))
	}
	for _, v := range c.Violations {
		h.put("<p class=\"violation\">Invariant violation: %s</p>\n", esc(v))
	}
	h.put("<div class=\"cols\"><ol class=\"timeline\">")
	for _, it := range timeline(c) {
		h.put("<li class=\"%s\" data-seq=\"%d\"><span class=\"seq\">#%d</span><span class=\"at\">%s</span>%s</li>", it.class, it.seq, it.seq, esc(it.at), it.html)
	}
	h.put("</ol>\n")
	if h.err == nil {
		h.err = newDiagram(fmt.Sprintf("c%d", h.n), c).write(h.w)
	}
	h.put("</div>\n</section>\n")
	return h.err
}

func (h *htmlWriter) End(r *Report) error {
	if h.n == 0 {
		h.put("<p>No calls.</p>\n")
	}
	if len(r.Amendments) > 0 {
		h.put("<section class=\"amendments\"><h2>Rules saved during the session</h2><ul>")
		for _, a := range r.Amendments {
			h.put("<li>#%d call %s: <code>%s</code>%s</li>", a.Seq, esc(a.CallID), esc(a.Line), esc(inFile(a.File)))
		}
		h.put("</ul></section>\n")
	}
	h.processes(r.Processes)
	h.network(r.Network)
	if len(r.Violations) > 0 {
		h.put("<section class=\"violations\"><h2>%d invariant violation(s)</h2><ul>", len(r.Violations))
		for _, v := range r.Violations {
			h.put("<li class=\"violation\">call %s, #%d: %s</li>", esc(v.CallID), v.Seq, esc(v.Message))
		}
		h.put("</ul></section>\n")
	}
	if d := r.Damaged; d.Incomplete() {
		h.put("<p class=\"violation damaged\" data-last-good-seq=\"%d\">The journal cannot be read after #%d (%s); every readable record was audited: %d of %d records. Not read:</p><ul>\n",
			d.LastGoodSeq, d.LastGoodSeq, esc(d.Error), d.Read, d.Last)
		for _, g := range d.Unread {
			h.put("<li class=\"unread\">%s</li>\n", esc(g.String()))
		}
		h.put("</ul>\n")
	} else if d != nil {
		h.put("<p class=\"violation damaged\">The journal is damaged (%s), but all %d of its records were read.</p>\n", esc(d.Error), d.Last)
	}
	h.put("</body></html>\n")
	return h.err
}

// item is one line of a call's timeline; html is already escaped.
type item struct {
	seq   uint64
	at    string
	class string
	html  string
}

// timeline merges a call's records into journal order.
func timeline(c *Call) []item {
	var out []item
	for _, t := range c.Transitions {
		out = append(out, item{t.Seq, t.At, "transition", fmt.Sprintf("<code>%s</code> —%s→ <code>%s</code> <span class=\"cause\">%s</span> %s",
			esc(t.From), esc(t.Event), esc(t.To), esc(t.Cause), esc(t.Reason))})
	}
	for _, r := range c.Requests {
		out = append(out, item{r.Seq, r.At, "request", fmt.Sprintf("approval requested (%s, %s): %s", esc(r.Phase.String()), esc(r.Kind.String()), esc(orDash(r.Reason)))})
	}
	for _, d := range c.Decisions {
		out = append(out, item{d.Seq, d.At, "decision", fmt.Sprintf("<b>%s</b> by %s (%s phase)", esc(d.Decision.String()), esc(whoDecided(&d)), esc(d.Phase.String()))})
	}
	for _, h := range c.Hooks {
		text := fmt.Sprintf("%s hook <code>%s</code>: <b>%s</b>", esc(h.Stage), esc(h.Name), esc(h.Decision))
		if h.Error != "" {
			text += " (failed: " + esc(h.Error) + "; on_error)"
		} else if h.Reason != "" {
			text += ": " + esc(h.Reason)
		}
		out = append(out, item{h.Seq, "", "hook", text})
	}
	for _, a := range c.Attempts {
		if a.Seq > 0 {
			out = append(out, item{a.Seq, a.At, "run", fmt.Sprintf("attempt %d starts: %s", a.Attempt, esc(sandboxNote(a.Sandbox)))})
		}
		if a.OutcomeSeq > 0 {
			class, text := "run", fmt.Sprintf("attempt %d: %s", a.Attempt, esc(resultNote(a)))
			if a.Denial != nil {
				class = "denial"
				text += "; the sandbox denied it: " + esc(denialSummary(a.Denial))
			}
			text += layersHTML(a.Sandbox)
			for _, f := range a.Fallbacks {
				text += "<p class=\"fallback\">fell back before the command existed: " + esc(f) + "</p>"
			}
			out = append(out, item{a.OutcomeSeq, "", class, text})
		}
	}
	out = append(out, networkHTML(c)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// esc escapes text for HTML and XML alike; characters XML cannot carry at
// all (most control characters) become U+FFFD.
func esc(s string) string {
	// Bidi overrides and invisible characters reorder or hide text in a
	// browser as on a terminal: made visible first, as everywhere.
	s = safetext.Text(s)
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r >= 0xD800 && r < 0xE000, r == 0xFFFE, r == 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return html.EscapeString(s)
}

// layersHTML lists, under a run, what each layer in force stops and what
// each missing one cost.
func layersHTML(sb *Sandbox) string {
	if sb == nil || len(sb.InForce)+len(sb.Missing)+len(sb.Limits) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<ul class=\"layers\">")
	for _, l := range sb.InForce {
		fmt.Fprintf(&b, "<li><code>%s</code> %s</li>", esc(l.Layer), esc(l.Words))
	}
	for _, l := range sb.Limits {
		fmt.Fprintf(&b, "<li><code>%s</code> %s</li>", esc(l.Layer), esc(l.Words))
	}
	for _, l := range sb.Missing {
		fmt.Fprintf(&b, "<li class=\"missing\">missing <code>%s</code>: %s</li>", esc(l.Layer), esc(l.Words))
	}
	b.WriteString("</ul>")
	return b.String()
}
