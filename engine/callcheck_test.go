package engine_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
)

// shellCall is one shell function_call item; extra is spliced into its
// arguments.
func shellCall(id, cmd, extra string) string {
	jid, _ := json.Marshal(id)
	return fmt.Sprintf(`{"type":"function_call","call_id":%s,"name":"shell","arguments":{"command":["bash","-lc",%q]%s}}`, jid, cmd, extra)
}

func invalidCalls(t *testing.T, recs []events.Record) []events.InvalidCall {
	t.Helper()
	var out []events.InvalidCall
	for _, r := range recs {
		if r.Kind == events.KindInvalidCall {
			b, err := r.Decode()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, *b.(*events.InvalidCall))
		}
	}
	return out
}

func TestCallsWithUnusableIdsAreRefusedBeforeAnythingRunsAndTheSessionGoesOn(t *testing.T) {
	t.Parallel()
	escalate := `,"sandbox_permissions":"require_escalated","justification":"needed"`
	cases := []struct {
		name     string
		response string
		answers  []events.ReviewDecision
		// files that must not exist afterwards, and those that must
		absent, present []string
		positions       []int // refused positions, in order
		reason          string
	}{
		{name: "an empty call_id, even with an approved escalation",
			response: `{"output":[` + shellCall("", "touch $OUT/empty", escalate) + `]}`,
			answers:  []events.ReviewDecision{events.Approved},
			absent:   []string{"$OUT/empty"}, positions: []int{0}, reason: "it has no call_id"},
		{name: "a call_id given twice: neither runs, the third call does",
			response: `{"output":[` + shellCall("d", "touch d1", "") + `,` + shellCall("d", "touch d2", "") + `,` + shellCall("ok", "touch ok", "") + `]}`,
			absent:   []string{"d1", "d2"}, present: []string{"ok"}, positions: []int{0, 1}, reason: `is given to 2 calls of this response`},
		{name: "a call_id with an escape sequence",
			response: `{"output":[` + shellCall("c\x1b[2K", "touch esc", "") + `]}`,
			absent:   []string{"esc"}, positions: []int{0}, reason: "printable ASCII"},
		{name: "an overlong call_id",
			response: `{"output":[` + shellCall(strings.Repeat("x", engine.MaxCallIDBytes+1), "touch long", "") + `]}`,
			absent:   []string{"long"}, positions: []int{0}, reason: "bytes long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, setup{approval: "on-request", mode: "workspace-write", answers: tc.answers,
				script: tc.response + "\n" + done})
			res := f.turn("go")
			if res.Status != events.TurnCompleted || res.Message != "done" {
				t.Fatalf("the session did not go on: %+v", res)
			}
			if len(f.asked()) != 0 {
				t.Fatalf("a refused call was put to the user: %+v", f.asked())
			}
			path := func(p string) string {
				if strings.HasPrefix(p, "$OUT/") {
					return filepath.Join(f.outside, strings.TrimPrefix(p, "$OUT/"))
				}
				return filepath.Join(f.ws, p)
			}
			for _, p := range tc.absent {
				if exists(path(p)) {
					t.Errorf("refused call ran: %s exists", p)
				}
			}
			for _, p := range tc.present {
				if !exists(path(p)) {
					t.Errorf("valid call of the same response did not run: %s missing", p)
				}
			}
			recs, err := f.j.All()
			if err != nil {
				t.Fatal(err)
			}
			inv := invalidCalls(t, recs)
			if len(inv) != len(tc.positions) {
				t.Fatalf("%d invalid_call records, want %d: %+v", len(inv), len(tc.positions), inv)
			}
			for i, r := range inv {
				if r.Position != tc.positions[i] || !strings.Contains(r.Reason, tc.reason) || r.TurnID != res.TurnID {
					t.Errorf("record %d: %+v, want position %d and a reason with %q", i, r, tc.positions[i], tc.reason)
				}
			}
			// No transition for a refused call: its id keys no machine.
			for _, r := range recs {
				if r.Kind == events.KindTransition && r.CallID == "" {
					t.Errorf("a transition without a call id: seq %d", r.Seq)
				}
			}
			// The model was told, naming the call's position.
			var told []string
			for _, it := range f.s.Items() {
				if it.Type == events.ItemFunctionCallOutput && strings.HasPrefix(it.Output, "Invalid call") {
					told = append(told, it.Output)
				}
			}
			if len(told) != len(tc.positions) || !strings.Contains(told[0], fmt.Sprintf("tool call %d of your response", tc.positions[0]+1)) {
				t.Fatalf("model told %q", told)
			}
			// Restoring the journal yields the conversation the live session had.
			r, err := engine.Restore(engine.Config{Model: mustScript(t, done), Approver: &enginetest.ScriptedApprover{}, Runner: &enginetest.FakeRunner{}}, &enginetest.MemLog{}, recs)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := itemsText(r.Items()), itemsText(f.s.Items()); got != want {
				t.Fatalf("restored conversation differs:\n%s\nlive:\n%s", got, want)
			}
		})
	}
}

func TestACallIdOfAnEarlierResponseIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
		script: `{"output":[` + shellCall("c1", "touch first", "") + `]}` + "\n" +
			`{"output":[` + shellCall("c1", "touch second", "") + `]}` + "\n" + done})
	res := f.turn("go")
	if res.Status != events.TurnCompleted {
		t.Fatalf("turn: %+v", res)
	}
	if !exists(filepath.Join(f.ws, "first")) || exists(filepath.Join(f.ws, "second")) {
		t.Fatalf("first ran %v (want true), second ran %v (want false)", exists(filepath.Join(f.ws, "first")), exists(filepath.Join(f.ws, "second")))
	}
	recs, err := f.j.All()
	if err != nil {
		t.Fatal(err)
	}
	inv := invalidCalls(t, recs)
	if len(inv) != 1 || inv[0].CallID != "c1" || !strings.Contains(inv[0].Reason, "already used") {
		t.Fatalf("invalid_call records %+v", inv)
	}
	if got, want := f.path("c1"), "run_sandboxed:policy_skip finish:completed"; got != want {
		t.Fatalf("the first call's path %q, want %q (the second must not touch it)", got, want)
	}
}

func itemsText(items []events.Item) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%s %q %q\n", it.Type, it.CallID, it.Output)
	}
	return b.String()
}

func mustScript(t *testing.T, lines string) *script.Model {
	t.Helper()
	m, err := script.Parse("script", []byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
