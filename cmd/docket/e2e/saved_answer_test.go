package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// TestASavedAnswerIsNotAskedAgainOnResume forces the race in which an
// approval's answer reaches the disk (carried by another call's commit)
// and docket dies before the call moves: the fault build commits at the
// point right after the answer is appended (DOCKET_FAULT_COMMIT_AT) and
// dies there (DOCKET_CRASH_AT). Resume must act on the saved answer, not
// ask for it again (no --decisions: asking would park). Without the
// commit the answer never reached the disk, and asking again is right.
func TestASavedAnswerIsNotAskedAgainOnResume(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		decision string
		commit   bool
		wantCode int
		// wantRuns is what ran.txt holds after the resume.
		wantRuns string
		// wantAsks is how many approval requests the journal holds.
		wantAsks int
	}{
		{name: "a saved approval runs the call without asking", decision: "approved", commit: true, wantCode: 0, wantRuns: "ran\n", wantAsks: 1},
		{name: "a saved session approval also grants the session", decision: "approved_for_session", commit: true, wantCode: 0, wantRuns: "ran\nran\n", wantAsks: 1},
		{name: "a saved denial is not asked again", decision: "denied", commit: true, wantCode: 0, wantRuns: "", wantAsks: 1},
		{name: "an answer lost in the crash is asked again", decision: "approved", commit: false, wantCode: 3, wantRuns: "", wantAsks: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			// c2 runs the same command as c1: a session grant from c1's
			// answer covers it.
			sh := func(id string) string {
				return `{"output":[{"type":"function_call","call_id":"` + id + `","name":"shell","arguments":{"command":["bash","-c","echo ran >> ran.txt"]}}]}`
			}
			script := writeScript(t, sh("c1"), `{"output":[{"type":"message","content":"after c1"}]}`)
			if tc.decision == "approved_for_session" {
				script = writeScript(t, sh("c1"), sh("c2"), `{"output":[{"type":"message","content":"after c2"}]}`)
			}
			env := []string{"DOCKET_CRASH_AT=after:decision"}
			if tc.commit {
				env = append(env, "DOCKET_FAULT_COMMIT_AT=after:decision")
			}
			r := run(t, faultBin, env, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "untrusted", "-s", "workspace-write",
				"--model-script", script, "--decisions", tc.decision, "go")
			if !r.signaled {
				t.Fatalf("docket should have died at after:decision: exit %d\n%s", r.code, r.stderr)
			}
			r = docket(t, nil, "resume", "last", "--home", home)
			if r.code != tc.wantCode {
				t.Fatalf("resume: exit %d, want %d\n%s", r.code, tc.wantCode, r.stderr)
			}
			b, err := os.ReadFile(filepath.Join(ws, "ran.txt"))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if string(b) != tc.wantRuns {
				t.Fatalf("ran.txt %q, want %q", b, tc.wantRuns)
			}
			sf, err := journal.Find(home, "last")
			if err != nil {
				t.Fatal(err)
			}
			asks, decisions := 0, 0
			for _, rec := range readJournal(t, sf.Path) {
				if rec.CallID != "c1" {
					continue
				}
				switch rec.Kind {
				case events.KindApprovalRequested:
					asks++
				case events.KindDecision:
					decisions++
				}
			}
			if asks != tc.wantAsks {
				t.Fatalf("call c1 was asked %d times, want %d", asks, tc.wantAsks)
			}
			if tc.commit && decisions != 1 {
				t.Fatalf("call c1 has %d decisions journaled, want the one", decisions)
			}
			if rr := docket(t, nil, "replay", "last", "--home", home); rr.code != 0 {
				t.Fatalf("verify replay of the resumed session: exit %d\n%s%s", rr.code, rr.stdout, rr.stderr)
			}
			if tc.wantCode == 3 && !strings.Contains(r.stderr, "c1") {
				t.Fatalf("the re-asked call should be named:\n%s", r.stderr)
			}
		})
	}
}
