package audit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/journal/journaltest"
	"github.com/docket-engine/docket/states"
)

// pagesSession writes a session big enough for every page type: 120
// calls over many commits (branch pages, a freelist), every 25th with an
// output larger than a page (overflow pages), every 10th run without the
// sandbox after the user approved it.
func pagesSession(t *testing.T) string {
	w := newWriter(t, "0199a1b2-0000-7000-8000-00000000c001", events.SessionConfig{ApprovalPolicy: "on-failure", SandboxMode: "workspace-write",
		WritableRoots: []string{fixtureCwd}})
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "build everything"})
	for i := 0; i < 120; i++ {
		id := fmt.Sprintf("p%03d", i)
		w.response("turn-1", i+1, shellItem(id, map[string]any{"command": []string{"make", id}}))
		out := "ok\n"
		if i%25 == 0 {
			out = strings.Repeat("a long line of build output\n", 400)
		}
		if i%10 == 0 {
			w.tr(id, states.WantsApproval, states.Ask, states.CauseEscalationRequested, "needs the network")
			w.ask(id, events.PhaseInitial, events.ApprovalExec, []string{"make", id}, "needs the network")
			w.add(id, events.Decision{CallID: id, Phase: events.PhaseInitial, Decision: events.Approved, Source: events.SourceUser, At: w.now.UnixNano()})
			w.tr(id, states.AwaitingDecision, states.RunUnsandboxed, states.CauseUserApproved, "approved")
			w.durable(id, events.ExecStarted{CallID: id, Attempt: 1, Tool: "shell", Argv: []string{"make", id}, Cwd: fixtureCwd, Sandbox: noPlan})
			w.add(id, events.ExecOutcome{CallID: id, Attempt: 1, Output: out})
			w.tr(id, states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
		} else {
			w.tr(id, states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
			w.durable(id, events.ExecStarted{CallID: id, Attempt: 1, Tool: "shell", Argv: []string{"make", id}, Cwd: fixtureCwd, Sandbox: wsPlan})
			w.add(id, events.ExecOutcome{CallID: id, Attempt: 1, Output: out, Layers: fsLayers})
			w.tr(id, states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
		}
		w.output(id, true)
	}
	return w.close()
}

// A bit flipped in any page type (meta, freelist, branch, leaf, overflow)
// never fails or stalls the audit: it reads what it can, and when it
// could not read everything its text names the file and what was lost,
// and --unsandboxed does not vouch for what it did not read.
func TestABitFlippedInEachPageTypeIsAudited(t *testing.T) {
	intact := pagesSession(t)
	kinds, pageSize, err := journaltest.PageKinds(intact)
	if err != nil {
		t.Fatal(err)
	}
	last := lastSeq(t, intact)
	orig, err := os.ReadFile(intact)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]int{}
	defer func() { t.Logf("outcomes: %v", outcomes) }()
	for _, kind := range []string{journaltest.PageMeta, journaltest.PageFreelist, journaltest.PageBranch, journaltest.PageLeaf, journaltest.PageOverflow} {
		pages := kinds[kind]
		if len(pages) == 0 {
			t.Fatalf("the session has no %s page", kind)
		}
		for _, p := range pages[:min(len(pages), 4)] {
			for _, off := range []int{8, 10, 16, 24, 40, 60, 100, 2000} {
				what := fmt.Sprintf("%s page %d byte %d flipped", kind, p, off)
				d := bytes.Clone(orig)
				d[p*pageSize+off] ^= 0x10
				damaged := copyJournal(t, intact)
				if err := os.WriteFile(damaged, d, 0o600); err != nil {
					t.Fatal(err)
				}
				r, err := Build(damaged, Options{UnsandboxedOnly: true})
				if err != nil {
					var nj *journal.NotJournalError
					if !errors.As(err, &nj) || !strings.Contains(err.Error(), damaged) {
						t.Fatalf("%s: %v; want an audit, or a NotJournalError naming the file", what, err)
					}
					outcomes[kind+": not a journal"]++
					continue
				}
				var text bytes.Buffer
				if err := WriteText(&text, r, Options{UnsandboxedOnly: true}); err != nil {
					t.Fatal(err)
				}
				out := text.String()
				d0 := r.Damaged
				outcomes[fmt.Sprintf("%s: incomplete=%v damaged=%v", kind, d0.Incomplete(), d0 != nil)]++
				switch {
				case d0.Incomplete():
					if !strings.Contains(out, damaged) || !strings.Contains(out, "INCOMPLETE") || uint64(d0.Read) >= last && d0.Last <= last {
						t.Fatalf("%s: incomplete audit (read %d of %d) whose text does not say so:\n%s", what, d0.Read, d0.Last, out)
					}
				case len(r.Calls) != 12:
					t.Fatalf("%s: a complete audit lists %d unsandboxed calls, want 12", what, len(r.Calls))
				}
			}
		}
	}
}
