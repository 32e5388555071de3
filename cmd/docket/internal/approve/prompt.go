package approve

import (
	"fmt"
	"strings"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events/safetext"
)

// maxPatchLines bounds the diff a prompt shows; past it the prompt says
// how much it left out, so nobody approves lines believing they saw all.
const maxPatchLines = 2000

// ANSI styles for the diff.
const (
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiReset = "\x1b[0m"
)

// prompt renders the request. Every string in it that the model or a
// command supplied goes through safetext, so none of it can act on the
// terminal; the command is the exact argv, quoted so a shell reads it back
// as the same words. It says plainly what a "yes" allows, and labels the
// model's justification as the model's.
func prompt(req engine.ApprovalRequest, color bool) string {
	var b strings.Builder
	if req.Agent != "" {
		fmt.Fprintf(&b, "\nApproval requested by subagent %s (session %s) for its call %s/%s (%s, %s)\n", safetext.Line(req.Agent),
			safetext.Line(req.AgentSession), safetext.Line(req.Agent), safetext.Line(req.CallID), req.Kind, req.Phase)
	} else {
		fmt.Fprintf(&b, "\nApproval requested for call %s (%s, %s)\n", safetext.Line(req.CallID), req.Kind, req.Phase)
	}
	if len(req.Command) > 0 {
		field(&b, "command: ", safetext.Join(req.Command))
	}
	if len(req.Paths) > 0 {
		paths := make([]string, len(req.Paths))
		for i, p := range req.Paths {
			paths[i] = safetext.Quote(p)
		}
		field(&b, "files:   ", strings.Join(paths, ", "))
	}
	field(&b, "cwd:     ", safetext.Quote(req.Cwd))
	if q := req.Network; q != nil {
		what := fmt.Sprintf("%s:%d (%s", safetext.Line(q.Host), q.Port, safetext.Line(q.Protocol))
		if q.Method != "" {
			what += " " + safetext.Line(q.Method)
		}
		field(&b, "network: ", what+"), not covered by permission profile "+safetext.Line(q.Profile))
	}
	if req.Reason != "" {
		if req.ModelJustification {
			field(&b, "the model says (its words, not Docket's): ", safetext.Line(req.Reason))
		} else {
			field(&b, "reason:  ", safetext.Line(req.Reason))
		}
	}
	if r := req.Risk; r != nil && r.Error == "" && (r.RiskLevel != "" || r.Description != "") {
		risk := safetext.Line(r.RiskLevel)
		if r.Description != "" {
			if risk != "" {
				risk += ": "
			}
			risk += safetext.Line(r.Description)
		}
		field(&b, "risk (the model's assessment): ", risk)
	}
	switch {
	case req.Unsandboxed:
		b.WriteString(emphasis(color, "  !! approving runs this WITHOUT THE SANDBOX: it can change any file you can and reach the network") + "\n")
	case req.RetryUnsandboxed:
		b.WriteString(emphasis(color, "  !! approving also allows a later run WITHOUT THE SANDBOX: if the sandbox blocks it, Docket re-runs it unsandboxed without asking again") + "\n")
	}
	if req.Patch != "" {
		b.WriteString("  patch:\n")
		b.WriteString(diff(req.Patch, color))
	}
	if len(req.ProposedAmendment) > 0 {
		field(&b, "rule:    ", "p saves an allow rule for commands starting with: "+safetext.Join(req.ProposedAmendment))
	}
	return b.String()
}

// field writes one labelled line, folded when long.
func field(b *strings.Builder, label, value string) {
	b.WriteString("  " + label)
	b.WriteString(safetext.Fold(value, safetext.DefaultWidth))
	b.WriteString("\n")
}

func emphasis(color bool, s string) string {
	if !color {
		return s
	}
	return ansiBold + ansiRed + s + ansiReset
}

// diff renders patch text line by line, made safe, coloured by the first
// character when color is on: + green, - red, file headers bold, hunk
// markers cyan.
func diff(patch string, color bool) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	shown := lines
	if len(shown) > maxPatchLines {
		shown = shown[:maxPatchLines]
	}
	for _, l := range shown {
		// Tabs expanded, not escaped: Go and Makefile patches are indented
		// with them and `\t` on every line makes a patch hard to read.
		text := safetext.Fold(safetext.Line(safetext.ExpandTabs(l, 0)), safetext.DefaultWidth)
		style := ""
		switch {
		case strings.HasPrefix(l, "***"):
			style = ansiBold
		case strings.HasPrefix(l, "@@"):
			style = ansiCyan
		case strings.HasPrefix(l, "+"):
			style = ansiGreen
		case strings.HasPrefix(l, "-"):
			style = ansiRed
		}
		b.WriteString("    ")
		if color && style != "" {
			b.WriteString(style + text + ansiReset)
		} else {
			b.WriteString(text)
		}
		b.WriteString("\n")
	}
	if n := len(lines) - len(shown); n > 0 {
		fmt.Fprintf(&b, "    … %d more lines not shown; answer n unless you have read them in the journal\n", n)
	}
	return b.String()
}

// choices is the line prompt's list of answers: exactly Choices(req),
// then the keys to type.
func choices(req engine.ApprovalRequest) string {
	var list, keys []string
	for _, c := range Choices(req) {
		list = append(list, "["+c.Key+"] "+c.Label)
		keys = append(keys, c.Key)
	}
	return strings.Join(list, "  ") + "\nanswer (" + strings.Join(keys, "/") + "): "
}

// pleaseAnswer names the keys req accepts, after a key it does not.
func pleaseAnswer(req engine.ApprovalRequest) string {
	var keys []string
	for _, c := range Choices(req) {
		keys = append(keys, c.Key)
	}
	return "please answer " + strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}
