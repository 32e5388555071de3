package audit

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// recordsFrom turns fuzz bytes into a record stream: any order of kinds,
// states, events, causes and call ids, valid or not, the way a damaged or
// hostile journal could hold them (CRCs are valid; the audit must cope with
// what they say).
func recordsFrom(data []byte) []events.Record {
	pick := func(i int, xs []string) string { return xs[i%len(xs)] }
	st := []string{"wantsApproval", "awaitingDecision", "sandboxed", "retryPrompt", "unsandboxed", "denied", "done", "", "bogus"}
	evs := []string{"ask", "run_sandboxed", "run_unsandboxed", "deny", "sandbox_denied", "finish", "fail", "interrupt", "x"}
	causes := []string{"user_approved", "rule_allow", "escalation_requested", "already_approved", "session_grant", "out_of_process",
		"danger_full_access", "user_denied", "sandbox_denial", "policy_skip", ""}
	ids := []string{"c1", "c2", "c3", ""}
	phases := []string{"initial", "retry", ""}
	decisions := []string{"approved", "approved_for_session", "denied", "timed_out", "abort"}
	sources := []string{"user", "timeout", "decisions_flag", "engine", ""}
	argvs := [][]string{{"git", "push"}, {"bash", "-lc", "git push && rm -rf /"}, nil, {"\x00<&>"}}
	var out []events.Record
	add := func(id string, body any) {
		r, err := events.NewRecord(uint64(len(out)+1), int64(len(out))*1e9, id, body)
		if err == nil {
			out = append(out, r)
		}
	}
	add("", events.SessionStarted{Version: 1, SessionID: "s", Cwd: "/w", Config: events.SessionConfig{ApprovalPolicy: "on-failure", SandboxMode: "workspace-write"},
		Rules: []events.RuleSource{{Path: "r.rules", Text: `prefix_rule(pattern=["git", "push"], decision="allow")`}}})
	for i := 0; i+3 < len(data); i += 4 {
		op, a, b, c := int(data[i]), int(data[i+1]), int(data[i+2]), int(data[i+3])
		id := pick(a, ids)
		switch op % 9 {
		case 0, 1, 2:
			add(id, events.Transition{CallID: id, From: pick(a>>2, st), Event: pick(b, evs), To: pick(c, st), Cause: pick(b>>3, causes), Reason: "r"})
		case 3:
			add(id, events.ApprovalRequested{CallID: id, Phase: events.Phase(pick(b, phases)), Kind: events.ApprovalExec, Command: argvs[c%len(argvs)]})
		case 4:
			add(id, events.Decision{CallID: id, Phase: events.Phase(pick(b, phases)), Decision: events.ReviewDecision(pick(c, decisions)), Source: events.DecisionSource(pick(c>>3, sources))})
		case 5:
			mode := events.SandboxNone
			if b%2 == 0 {
				mode = events.SandboxWorkspaceWrite
			}
			add(id, events.ExecStarted{CallID: id, Attempt: c % 3, Tool: "shell", Argv: argvs[b%len(argvs)], Sandbox: events.SandboxPlan{Mode: mode}})
		case 6:
			var d *events.DenialEvidence
			if b%2 == 0 {
				d = &events.DenialEvidence{Errno: "EROFS", Path: "/etc"}
			}
			add(id, events.ExecOutcome{CallID: id, Attempt: c % 3, ExitCode: b - 128, Denial: d, Layers: []string{"landlock"}})
		case 7:
			add(id, events.ToolOutput{CallID: id, Success: b%2 == 0})
		case 8:
			switch b % 3 {
			case 0:
				add(id, events.Grant{CallID: id, Keys: []string{"k"}})
			case 1:
				add(id, events.RuleAmended{CallID: id, Pattern: argvs[c%len(argvs)]})
			default:
				add("", events.ModelResponse{Items: []events.Item{{Type: events.ItemFunctionCall, CallID: id, Name: "shell", Arguments: string(data[i:])}}})
			}
		}
	}
	return out
}

func FuzzAuditRecords(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 5, 0, 0, 2, 6, 0, 1, 2, 0, 8, 4, 6, 7, 0, 0, 0})
	f.Add([]byte{3, 1, 1, 2, 4, 1, 1, 0, 0, 5, 2, 4, 5, 1, 1, 1, 1, 0, 12, 6, 7, 1, 0, 0, 8, 2, 0, 0})
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice over"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs := recordsFrom(data)
		var c collector
		a := newAuditor("j", Options{}, &c)
		var ferr error
		for _, r := range recs {
			if ferr = a.feed(r); ferr != nil {
				break
			}
		}
		d, err := damageOf(ferr)
		if err != nil {
			t.Fatalf("feed: %v", err)
		}
		if err := a.end(d); err != nil {
			t.Fatal(err)
		}
		r := c.report
		for _, call := range r.Calls {
			if call.RanUnsandboxed && call.WhyUnsandboxed == "" {
				t.Fatalf("call %s ran unsandboxed with no why", call.CallID)
			}
			for _, tr := range call.Transitions {
				if tr.To == string(states.Unsandboxed) && !states.Cause(tr.Cause).JustifiesUnsandboxed() && len(call.Violations) == 0 {
					t.Fatalf("call %s reached unsandboxed by %q without a violation", call.CallID, tr.Cause)
				}
			}
		}
		var js, page, text bytes.Buffer
		if err := WriteJSON(&js, r); err != nil || !json.Valid(js.Bytes()) {
			t.Fatalf("JSON invalid (%v): %s", err, js.Bytes())
		}
		if err := WriteText(&text, r, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(&page, r); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(&page)
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("HTML is not well-formed: %v", err)
			}
		}
	})
}
