package main

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/cmd/docket/internal/tui"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
)

// Transcript reads the current session's conversation back from its
// journal for the UI to show on resume: prompts, the model's messages,
// the commands run and how they ended, compactions.
func (b *chatBackend) Transcript() ([]tui.Entry, error) {
	b.mu.Lock()
	s := b.sess
	b.mu.Unlock()
	if s == nil {
		return nil, errors.New("no session is open")
	}
	recs, err := s.Records()
	if err != nil {
		return nil, err
	}
	return transcriptOf(recs)
}

// transcriptOf folds journal records into conversation entries.
func transcriptOf(recs []events.Record) ([]tui.Entry, error) {
	var out []tui.Entry
	calls := map[string]int{} // call id -> its entry
	for _, rec := range recs {
		body, err := rec.Decode()
		if err != nil {
			return out, fmt.Errorf("journal record %d: %w", rec.Seq, err)
		}
		switch v := body.(type) {
		case *events.UserTurn:
			out = append(out, tui.Entry{Kind: tui.EntryUser, Text: v.Text})
		case *events.ModelResponse:
			for _, it := range v.Items {
				if it.Type == events.ItemMessage && it.Role == "assistant" && it.Text != "" {
					out = append(out, tui.Entry{Kind: tui.EntryAssistant, Text: it.Text})
				}
			}
		case *events.ExecStarted:
			if _, seen := calls[v.CallID]; seen {
				continue
			}
			what := v.Tool
			switch {
			case len(v.Argv) > 0:
				what = safetext.Join(v.Argv)
			case v.Server != "":
				what = v.Server + "." + v.MCPTool
			}
			calls[v.CallID] = len(out)
			out = append(out, tui.Entry{Kind: tui.EntryCall, Text: what})
		case *events.ExecOutcome:
			if i, ok := calls[v.CallID]; ok {
				e := &out[i]
				e.Failed = v.ExitCode != 0 || v.Error != "" || v.Signal != "" || v.IsError
				if v.ExitCode != 0 {
					e.Text = fmt.Sprintf("%s  [exit %d]", e.Text, v.ExitCode)
				}
			}
		case *events.Transition:
			// A call stopped by an interrupt has no outcome; its last
			// transition says how it ended.
			if i, ok := calls[v.CallID]; ok && v.To == "done" && v.Cause != "completed" && v.Cause != "" && !out[i].Failed {
				out[i].Failed = true
				out[i].Text += "  [" + v.Cause + "]"
			}
		case *events.Compaction:
			if v.Error == "" {
				out = append(out, tui.Entry{Kind: tui.EntryInfo, Text: "conversation compacted (" + v.Trigger + ")"})
			}
		}
	}
	return out, nil
}
