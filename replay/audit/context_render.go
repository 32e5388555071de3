package audit

import (
	"fmt"
	"strings"
)

// How the writers show session events (context.go): in text and HTML in
// their place among the calls, in JSON as the report's "events" array.

// Event writes a compaction or a prompt's attachments where it happened.
func (t *textWriter) Event(e *Event) error {
	if t.netOnly {
		return t.err
	}
	switch {
	case e.Compaction != nil:
		t.compaction(e, e.Compaction)
	case e.Prompt != nil:
		t.prompt(e, e.Prompt)
	case e.Policy != nil:
		p := e.Policy
		if ps := p.Profile; ps != nil {
			t.printf("\npermissions seq %d  %s  permission profile %s (was %s), switched by %s: sandbox %s; later calls run under it\n",
				e.Seq, orDash(e.At), orDash(ps.Profile), orDash(ps.Previous), orDash(p.Source), orDash(ps.SandboxMode))
			for _, h := range ps.Hidden {
				t.printf("            hides %s\n", h)
			}
			break
		}
		t.printf("\npolicy      seq %d  %s  approval policy %s (was %s), changed by %s; later calls are decided under it\n",
			e.Seq, orDash(e.At), orDash(p.ApprovalPolicy), orDash(p.Previous), orDash(p.Source))
	}
	return t.err
}

func (t *textWriter) compaction(e *Event, c *Compaction) {
	t.printf("\ncompaction  seq %d  %s  %s, %s\n", e.Seq, orDash(e.At), c.Trigger, turnWhere(c))
	if c.Error != "" {
		t.printf("  FAILED   %s; the conversation was left as it was\n", c.Error)
	}
	t.printf("  replaced %d conversation items (digest %s): %s\n", c.Replaced, orDash(c.ReplacedDigest), turnSpan(c))
	t.printf("  tokens   %d before; the summary request took %d in (%d cached), %d out\n",
		c.TokensBefore, c.Usage.InputTokens, c.Usage.CachedInputTokens, c.Usage.OutputTokens)
	if c.KeptPrompt {
		t.printf("  kept     the prompt of %s, before the summary\n", orDash(c.TurnID))
	}
	if c.Summary == "" {
		return
	}
	t.printf("  summary  %s, %d bytes:\n", c.SummarySHA256, len(c.Summary))
	for _, line := range strings.Split(c.Summary, "\n") {
		t.printf("    | %s\n", line)
	}
}

func (t *textWriter) prompt(e *Event, p *Prompt) {
	t.printf("\nprompt      seq %d  %s  %s: %s\n", e.Seq, orDash(e.At), orDash(p.TurnID), quoted(p.Preview))
	for _, a := range p.Attachments {
		t.printf("  attached %s  %s\n", a.Path, attachmentNote(a))
	}
	for _, img := range p.Images {
		t.printf("  image    %s, %d bytes as a data URL\n", img.SHA256, img.Bytes)
	}
}

// turnWhere says when a compaction happened.
func turnWhere(c *Compaction) string {
	switch {
	case c.TurnID == "":
		return "before the first turn"
	case c.Trigger == "auto":
		return "during " + c.TurnID
	}
	return "after " + c.TurnID
}

// turnSpan says which turns a compaction's summary replaced.
func turnSpan(c *Compaction) string {
	var s string
	switch {
	case c.FirstTurn == "" && c.LastTurn == "":
		s = "no turn"
	case c.FirstTurn == "" || c.FirstTurn == c.LastTurn:
		s = orDash(c.LastTurn)
	default:
		s = c.FirstTurn + " to " + c.LastTurn
	}
	if c.PreviousSeq > 0 {
		s += fmt.Sprintf(", after the summary of the compaction at seq %d", c.PreviousSeq)
	}
	return s
}

func attachmentNote(a Attachment) string {
	s := fmt.Sprintf("%d bytes, %s", a.Size, a.SHA256)
	if a.Truncated {
		s += fmt.Sprintf(", TRUNCATED: the model got the first %d bytes", a.SentBytes)
	}
	return s
}

func quoted(s string) string { return `"` + s + `"` }

// Event keeps the event for the report's "events" array.
func (j *jsonWriter) Event(e *Event) error {
	j.events = append(j.events, *e)
	return nil
}

// Event writes a compaction or a prompt's attachments as a section of its
// own between the calls' sections.
func (h *htmlWriter) Event(e *Event) error {
	switch {
	case e.Compaction != nil:
		c := e.Compaction
		h.put("<section class=\"event compaction\" data-seq=\"%d\">\n<h2>Context compacted · %s · %s</h2>\n", e.Seq, esc(c.Trigger), esc(turnWhere(c)))
		if c.Error != "" {
			h.put("<p class=\"violation\">The compaction failed: %s. The conversation was left as it was.</p>\n", esc(c.Error))
		}
		h.put("<dl class=\"head\"><dt>seq</dt><dd>#%d <span class=\"at\">%s</span></dd>", e.Seq, esc(e.At))
		h.put("<dt>replaced</dt><dd>%d conversation items: %s</dd>", c.Replaced, esc(turnSpan(c)))
		h.put("<dt>replaced digest</dt><dd><code>%s</code></dd>", esc(orDash(c.ReplacedDigest)))
		h.put("<dt>tokens</dt><dd>%d before; the summary request took %d in (%d cached), %d out</dd>",
			c.TokensBefore, c.Usage.InputTokens, c.Usage.CachedInputTokens, c.Usage.OutputTokens)
		if c.KeptPrompt {
			h.put("<dt>kept</dt><dd>the prompt of %s, before the summary</dd>", esc(orDash(c.TurnID)))
		}
		if c.Summary != "" {
			h.put("<dt>summary</dt><dd><code>%s</code>, %d bytes</dd>", esc(c.SummarySHA256), len(c.Summary))
		}
		h.put("</dl>\n")
		if c.Summary != "" {
			h.put("<pre class=\"summary-text\">%s</pre>\n", esc(c.Summary))
		}
		h.put("</section>\n")
	case e.Prompt != nil:
		p := e.Prompt
		h.put("<section class=\"event attachments\" data-seq=\"%d\">\n<h2>Prompt of %s · #%d <span class=\"at\">%s</span></h2>\n<p><q>%s</q></p>\n<ul>",
			e.Seq, esc(orDash(p.TurnID)), e.Seq, esc(e.At), esc(p.Preview))
		for _, a := range p.Attachments {
			class := "attachment"
			if a.Truncated {
				class += " truncated"
			}
			h.put("<li class=\"%s\"><code>%s</code> %s</li>", class, esc(a.Path), esc(attachmentNote(a)))
		}
		for _, img := range p.Images {
			h.put("<li class=\"image\">image <code>%s</code>, %d bytes as a data URL</li>", esc(img.SHA256), img.Bytes)
		}
		h.put("</ul>\n</section>\n")
	case e.Policy != nil:
		p := e.Policy
		if ps := p.Profile; ps != nil {
			h.put("<section class=\"event policy\" data-seq=\"%d\">\n<h2>Permission profile switched · #%d <span class=\"at\">%s</span></h2>\n", e.Seq, e.Seq, esc(e.At))
			h.put("<p>Permission profile <code>%s</code> (was <code>%s</code>), switched by %s: sandbox <code>%s</code>; later calls run under it.</p>\n",
				esc(orDash(ps.Profile)), esc(orDash(ps.Previous)), esc(orDash(p.Source)), esc(orDash(ps.SandboxMode)))
			for _, hid := range ps.Hidden {
				h.put("<p class=\"hidden\">hides <code>%s</code></p>\n", esc(hid))
			}
			h.put("</section>\n")
			break
		}
		h.put("<section class=\"event policy\" data-seq=\"%d\">\n<h2>Approval policy changed · #%d <span class=\"at\">%s</span></h2>\n", e.Seq, e.Seq, esc(e.At))
		h.put("<p>Approval policy <code>%s</code> (was <code>%s</code>), changed by %s; later calls are decided under it.</p>\n</section>\n",
			esc(orDash(p.ApprovalPolicy)), esc(orDash(p.Previous)), esc(orDash(p.Source)))
	}
	return h.err
}
