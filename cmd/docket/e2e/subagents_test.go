package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// spawnLine is a parent response that starts subagents, one call each:
// pairs of call id and JSON arguments.
func spawnLine(calls ...[2]string) string {
	var items []string
	for _, c := range calls {
		items = append(items, `{"type":"function_call","call_id":"`+c[0]+`","name":"spawn_agent","arguments":`+c[1]+`}`)
	}
	return `{"output":[` + strings.Join(items, ",") + `]}`
}

// agentShell is a subagent's response running one shell command.
func agentShell(agent, id, script string) string {
	arg, _ := json.Marshal([]string{"bash", "-c", script})
	return `{"agent":"` + agent + `","output":[{"type":"function_call","call_id":"` + id + `","name":"shell","arguments":{"command":` + string(arg) + `}}]}`
}

func agentSays(agent, text string) string {
	return `{"agent":"` + agent + `","output":[{"type":"message","content":"` + text + `"}]}`
}

func says(text string) string { return `{"output":[{"type":"message","content":"` + text + `"}]}` }

// tree is a run of a parent session with subagents.
type tree struct{ home, ws, script string }

func newTree(t *testing.T, lines ...string) *tree {
	return &tree{home: t.TempDir(), ws: t.TempDir(), script: writeScript(t, lines...)}
}

func (tr *tree) exec(t *testing.T, bin string, env []string, policy string, extra ...string) result {
	t.Helper()
	args := append([]string{"exec", "--skip-git-repo-check", "--home", tr.home, "-C", tr.ws, "-a", policy, "-s", "workspace-write",
		"-c", "subagents.enabled=true", "--model-script", tr.script}, extra...)
	return run(t, bin, env, append(args, "go")...)
}

func (tr *tree) resume(t *testing.T, id string, extra ...string) result {
	t.Helper()
	return docket(t, nil, append([]string{"resume", "--home", tr.home, "--model-script", tr.script, id}, extra...)...)
}

// sessions returns the sessions by parent: the root's id and its children's
// session_started records.
func (tr *tree) sessions(t *testing.T) (root string, children map[string]events.SessionStarted) {
	t.Helper()
	files, _, err := journal.List(tr.home)
	if err != nil {
		t.Fatal(err)
	}
	children = map[string]events.SessionStarted{}
	for _, f := range files {
		recs := readJournal(t, f.Path)
		b, err := recs[0].Decode()
		if err != nil {
			t.Fatal(err)
		}
		ss := b.(*events.SessionStarted)
		if ss.Parent == nil {
			if root != "" {
				t.Fatalf("two top-level sessions: %s and %s", root, ss.SessionID)
			}
			root = ss.SessionID
			continue
		}
		children[ss.Parent.Name] = *ss
	}
	return root, children
}

func (tr *tree) records(t *testing.T, id string) []events.Record {
	t.Helper()
	sf, err := journal.Find(tr.home, id)
	if err != nil {
		t.Fatal(err)
	}
	return readJournal(t, sf.Path)
}

// bodies decodes the records of kind k.
func bodies[T any](t *testing.T, recs []events.Record, k events.RecordKind) []*T {
	t.Helper()
	var out []*T
	for _, r := range recs {
		if r.Kind != k {
			continue
		}
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b.(*T))
	}
	return out
}

// A subagent's request goes to the parent's approver; with nobody to answer
// the child parks, which parks the parent (exit 3, naming the child's call);
// resume of the parent answers it with --decisions. The decision is
// journaled in the child and referenced in the parent's outcome; the tree
// verifies, audits with paths and lists children under their parent.
func TestSubagentParksParentAndResumeAnswersIt(t *testing.T) {
	t.Parallel()
	tr := newTree(t,
		spawnLine([2]string{"p1", `{"prompt":"write out.txt","name":"writer"}`}),
		says("parent done"),
		agentShell("writer", "w1", "echo hi > out.txt"),
		agentSays("writer", "writer wrote out.txt"),
	)
	r := tr.exec(t, docketBin, nil, "untrusted")
	if r.code != 3 {
		t.Fatalf("exec: exit %d, want 3 (parked)\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "writer/w1") {
		t.Errorf("the parked notice does not name the child's call writer/w1:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(tr.ws, "out.txt")); err == nil {
		t.Fatal("the child's command ran before anyone approved it")
	}
	root, kids := tr.sessions(t)
	w, ok := kids["writer"]
	if !ok {
		t.Fatalf("no child session named writer; children %v", kids)
	}
	if w.Parent.SessionID != root || w.Parent.CallID != "p1" || w.Parent.Depth != 1 {
		t.Errorf("child's parent link = %+v, want session %s call p1 depth 1", *w.Parent, root)
	}
	if w.Config.ApprovalPolicy != "untrusted" || w.Plan.Mode != "workspace-write" {
		t.Errorf("child did not inherit the policy: %+v plan %s", w.Config, w.Plan.Mode)
	}
	starts := bodies[events.ExecStarted](t, tr.records(t, root), events.KindExecStarted)
	if len(starts) != 1 || starts[0].Agent == nil || starts[0].Agent.ChildID != w.SessionID {
		t.Fatalf("the parent's call does not record the child id %s: %+v", w.SessionID, starts)
	}
	if r := tr.resume(t, w.SessionID, "--decisions", "approved"); r.code != 2 || !strings.Contains(r.stderr, "resume that session") {
		t.Errorf("resuming the child itself: exit %d, want 2 pointing at its parent\n%s", r.code, r.stderr)
	}

	// --last is the parent, never the child (which may sort first).
	r = docket(t, nil, "resume", "--last", "--all", "--home", tr.home, "--model-script", tr.script, "--decisions", "approved")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(tr.ws, "out.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("the approved child command did not run once: %q %v", b, err)
	}
	if !strings.Contains(r.stdout, "parent done") {
		t.Errorf("the parent did not finish: %s", r.stdout)
	}
	decs := bodies[events.Decision](t, tr.records(t, w.SessionID), events.KindDecision)
	if len(decs) != 1 || decs[0].CallID != "w1" || decs[0].Decision != events.Approved || decs[0].Source != events.SourceFlag {
		t.Fatalf("the child's journal should hold the parent's --decisions answer for w1: %+v", decs)
	}
	outs := bodies[events.ExecOutcome](t, tr.records(t, root), events.KindExecOutcome)
	if len(outs) != 1 || outs[0].Agent == nil || len(outs[0].Agent.Decisions) != 1 || outs[0].Agent.Decisions[0].RequestID != decs[0].RequestID {
		t.Fatalf("the parent's outcome does not reference the child's decision: %+v", outs)
	}
	tos := bodies[events.ToolOutput](t, tr.records(t, root), events.KindToolOutput)
	if len(tos) != 1 || tos[0].Output != "writer wrote out.txt" || !tos[0].Success {
		t.Errorf("the parent call's output is not the child's final message: %+v", tos)
	}

	rep := docket(t, nil, "replay", "--home", tr.home, root)
	if rep.code != 0 || strings.Count(rep.stdout, "replay ok") != 2 {
		t.Errorf("verify replay of the tree: exit %d, want both sessions ok\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	au := docket(t, nil, "audit", "--tree", "--home", tr.home, root)
	if au.code != 0 || !strings.Contains(au.stdout, "call writer/w1") || !strings.Contains(au.stdout, "subagent writer: session "+w.SessionID+", started by call p1") ||
		!strings.Contains(au.stdout, "parent  subagent writer of session "+root+" (call p1)") {
		t.Errorf("audit --tree: exit %d, want the child's call by its path\n%s%s", au.code, au.stdout, au.stderr)
	}
	aj := docket(t, nil, "audit", "--tree", "--json", "--home", tr.home, root)
	var reports []struct {
		SessionID string `json:"session_id"`
		Parent    *struct {
			SessionID string `json:"session_id"`
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
		} `json:"parent"`
		Calls []struct {
			CallID string `json:"call_id"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(aj.stdout), &reports); err != nil || aj.code != 0 {
		t.Fatalf("audit --tree --json: exit %d, %v\n%s", aj.code, err, aj.stdout)
	}
	if len(reports) != 2 || reports[1].Parent == nil || reports[1].Parent.Name != "writer" || reports[1].Parent.SessionID != root ||
		len(reports[1].Calls) != 1 || reports[1].Calls[0].CallID != "writer/w1" {
		t.Errorf("audit --tree --json: %+v", reports)
	}
	ls := docket(t, nil, "sessions", "--home", tr.home)
	lines := strings.Split(strings.TrimSpace(ls.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], root) || !strings.HasPrefix(lines[2], "└ "+w.SessionID) {
		t.Errorf("sessions should list the child under its parent:\n%s", ls.stdout)
	}
}

// --decisions given up front answers the children's requests too, in the
// order they are asked; a --decisions answer is who decided.
func TestSubagentDecisionsFlagAnswersChild(t *testing.T) {
	t.Parallel()
	tr := newTree(t,
		spawnLine([2]string{"p1", `{"prompt":"one","name":"a"}`}),
		spawnLine([2]string{"p2", `{"prompt":"two","name":"b"}`}),
		says("both done"),
		agentShell("a", "x1", "echo a >> runs.log"),
		agentSays("a", "a done"),
		agentShell("b", "y1", "echo b >> runs.log"),
		agentSays("b", "b done"),
	)
	r := tr.exec(t, docketBin, nil, "untrusted", "--decisions", "approved,denied")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(tr.ws, "runs.log"))
	if string(b) != "a\n" {
		t.Errorf("runs.log = %q: want a's approved command only (b's was denied)", b)
	}
	_, kids := tr.sessions(t)
	d := bodies[events.Decision](t, tr.records(t, kids["b"].SessionID), events.KindDecision)
	if len(d) != 1 || d[0].Decision != events.Denied {
		t.Errorf("b's journal: %+v, want its call denied", d)
	}
}

// An override that would widen the parent's policy is refused with an error
// the model reads, and no child starts.
func TestSubagentWiderPolicyRefused(t *testing.T) {
	t.Parallel()
	tr := newTree(t,
		spawnLine([2]string{"p1", `{"prompt":"x","name":"wide","sandbox_mode":"danger-full-access"}`},
			[2]string{"p2", `{"prompt":"x","name":"net","network_access":true}`},
			[2]string{"p3", `{"prompt":"x","name":"lax","approval_policy":"never"}`}),
		says("refused"),
	)
	r := tr.exec(t, docketBin, nil, "on-request")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	root, kids := tr.sessions(t)
	if len(kids) != 0 {
		t.Fatalf("a widening subagent started: %v", kids)
	}
	tos := bodies[events.ToolOutput](t, tr.records(t, root), events.KindToolOutput)
	want := map[string]string{"p1": `sandbox_mode "danger-full-access"`, "p2": "network_access true", "p3": `approval_policy "never"`}
	if len(tos) != 3 {
		t.Fatalf("outputs %+v", tos)
	}
	for _, o := range tos {
		if o.Success || !strings.Contains(o.Output, "may only narrow") || !strings.Contains(o.Output, want[o.CallID]) {
			t.Errorf("call %s output %q: want a refusal naming %s", o.CallID, o.Output, want[o.CallID])
		}
	}
}

// Ctrl-C while two subagents run commands interrupts both: each child's call
// is journaled interrupted (cancelled) through its own state machine, the
// parent's calls too, and nothing runs afterwards: the commands would write
// a marker after a delay, and none appears.
func TestSubagentTreeCancelledMidRun(t *testing.T) {
	t.Parallel()
	slow := func(name string) string {
		return "touch started-" + name + "; sleep 3; touch marker-" + name
	}
	tr := newTree(t,
		spawnLine([2]string{"p1", `{"prompt":"slow","name":"a"}`}, [2]string{"p2", `{"prompt":"slow","name":"b"}`}),
		says("never"),
		agentShell("a", "x1", slow("a")),
		agentSays("a", "a done"),
		agentShell("b", "y1", slow("b")),
		agentSays("b", "b done"),
	)
	cmd := exec.Command(docketBin, "exec", "--skip-git-repo-check", "--home", tr.home, "-C", tr.ws, "-a", "never", "-s", "workspace-write",
		"-c", "subagents.enabled=true", "--model-script", tr.script, "go")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := func() bool {
		_, e1 := os.Stat(filepath.Join(tr.ws, "started-a"))
		_, e2 := os.Stat(filepath.Join(tr.ws, "started-b"))
		return e1 == nil && e2 == nil
	}
	if !waitFor(started) {
		_ = cmd.Process.Kill()
		t.Fatal("the children's commands never started")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("docket after Ctrl-C: %v, want exit 1", err)
	}
	// Longer than the commands' delay: a command still running would have
	// written its marker by now.
	time.Sleep(4 * time.Second)
	for _, n := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(tr.ws, "marker-"+n)); err == nil {
			t.Errorf("child %s's command ran on after the tree was cancelled", n)
		}
	}
	root, kids := tr.sessions(t)
	for name, ss := range kids {
		trs := bodies[events.Transition](t, tr.records(t, ss.SessionID), events.KindTransition)
		last := trs[len(trs)-1]
		if last.Event != "interrupt" || last.Cause != "cancelled" {
			t.Errorf("child %s's call ended %s/%s, want interrupt/cancelled", name, last.Event, last.Cause)
		}
	}
	for _, tr := range bodies[events.Transition](t, tr.records(t, root), events.KindTransition) {
		if tr.To == "done" && (tr.Event != "interrupt" || tr.Cause != "cancelled") {
			t.Errorf("parent call %s ended %s/%s, want interrupt/cancelled", tr.CallID, tr.Event, tr.Cause)
		}
	}
	if len(kids) != 2 {
		t.Errorf("children %v, want a and b", kids)
	}
}

// The parent dies (SIGKILL) while its two children run commands; resume of
// the parent resumes both children: the calls caught mid-run are recorded
// interrupted and never run again (each command appends one line), the
// children finish, and the tree verifies.
func TestSubagentCrashMidRunThenResume(t *testing.T) {
	t.Parallel()
	cmdOf := func(name string) string { return "echo " + name + " >> runs.log; echo running; sleep 0.5" }
	tr := newTree(t,
		spawnLine([2]string{"p1", `{"prompt":"one","name":"a"}`}, [2]string{"p2", `{"prompt":"two","name":"b"}`}),
		says("parent done"),
		agentShell("a", "x1", cmdOf("a")),
		agentSays("a", "a done"),
		agentShell("b", "y1", cmdOf("b")),
		agentSays("b", "b done"),
	)
	r := tr.exec(t, faultBin, []string{"DOCKET_CRASH_AT=while_running@2"}, "never")
	if !r.signaled {
		t.Fatalf("docket was not killed at the second while_running: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	root, _ := tr.sessions(t)
	r = tr.resume(t, root)
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(tr.ws, "runs.log"))
	for _, n := range []string{"a", "b"} {
		if c := strings.Count(string(b), n+"\n"); c > 1 {
			t.Errorf("child %s's command ran %d times: runs.log %q", n, c, b)
		}
	}
	_, kids := tr.sessions(t)
	recovered := 0
	for _, ss := range kids {
		for _, tr := range bodies[events.Transition](t, tr.records(t, ss.SessionID), events.KindTransition) {
			if tr.Cause == "crash_recovery" {
				recovered++
			}
		}
	}
	if recovered == 0 {
		t.Error("no child call was found in flight and recorded interrupted by the resume (crash_recovery)")
	}
	for name, ss := range kids {
		ends := bodies[events.TurnEnded](t, tr.records(t, ss.SessionID), events.KindTurnEnded)
		if len(ends) == 0 || ends[len(ends)-1].Status != events.TurnCompleted {
			t.Errorf("child %s did not finish its turn after the resume: %+v", name, ends)
		}
	}
	rep := docket(t, nil, "replay", "--home", tr.home, root)
	if rep.code != 0 || strings.Count(rep.stdout, "replay ok") != 3 {
		t.Errorf("verify replay of the crashed-and-resumed tree: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// Subagents running in parallel ask in no fixed order: --decisions answers
// addressed NAME/CALL_ID reach the call they name whichever asks first.
func TestSubagentAddressedDecisionsInParallel(t *testing.T) {
	t.Parallel()
	tr := newTree(t,
		spawnLine([2]string{"p1", `{"prompt":"one","name":"a"}`}, [2]string{"p2", `{"prompt":"two","name":"b"}`}),
		says("both done"),
		agentShell("a", "x1", "echo a >> runs.log"),
		agentSays("a", "a done"),
		agentShell("b", "y1", "echo b >> runs.log"),
		agentSays("b", "b done"),
	)
	r := tr.exec(t, docketBin, nil, "untrusted", "--decisions", "b/y1=denied,a/x1=approved")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(tr.ws, "runs.log")); string(b) != "a\n" {
		t.Errorf("runs.log = %q: want a's approved command only", b)
	}
	_, kids := tr.sessions(t)
	for name, want := range map[string]events.ReviewDecision{"a": events.Approved, "b": events.Denied} {
		d := bodies[events.Decision](t, tr.records(t, kids[name].SessionID), events.KindDecision)
		if len(d) != 1 || d[0].Decision != want {
			t.Errorf("%s's decisions %+v, want %s", name, d, want)
		}
	}
}

// A subagent's subagent: its request parks the whole tree under the path
// a/b/CALL_ID, an answer addressed to that path resumes it, and the audit
// and replay cover all three sessions. subagents.max_depth = 1 refuses the
// grandchild instead.
func TestNestedSubagents(t *testing.T) {
	t.Parallel()
	lines := []string{
		spawnLine([2]string{"p1", `{"prompt":"delegate","name":"a"}`}),
		says("top done"),
		`{"agent":"a","output":[{"type":"function_call","call_id":"q1","name":"spawn_agent","arguments":{"prompt":"write","name":"b"}}]}`,
		agentSays("a", "a done"),
		agentShell("b", "z1", "echo deep > deep.txt"),
		agentSays("b", "b done"),
	}
	tr := newTree(t, lines...)
	r := tr.exec(t, docketBin, nil, "untrusted")
	if r.code != 3 || !strings.Contains(r.stderr, "a/b/z1") {
		t.Fatalf("exit %d, want 3 naming a/b/z1\n%s", r.code, r.stderr)
	}
	root, kids := tr.sessions(t)
	if kids["b"].Parent == nil || kids["b"].Parent.SessionID != kids["a"].SessionID || kids["b"].Parent.Depth != 2 {
		t.Fatalf("b's parent link %+v, want a's session at depth 2", kids["b"].Parent)
	}
	r = tr.resume(t, root, "--decisions", "a/b/z1=approved")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(tr.ws, "deep.txt")); err != nil || string(b) != "deep\n" {
		t.Errorf("the grandchild's approved command did not run: %q %v", b, err)
	}
	au := docket(t, nil, "audit", "--tree", "--home", tr.home, root)
	if au.code != 0 || !strings.Contains(au.stdout, "call a/b/z1") || !strings.Contains(au.stdout, "subagent a/b: session "+kids["b"].SessionID+", started by call a/q1") {
		t.Errorf("audit --tree: exit %d\n%s%s", au.code, au.stdout, au.stderr)
	}
	if rep := docket(t, nil, "replay", "--home", tr.home, root); rep.code != 0 || strings.Count(rep.stdout, "replay ok") != 3 {
		t.Errorf("replay of the three-session tree: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}

	shallow := newTree(t, lines...)
	r = shallow.exec(t, docketBin, nil, "untrusted", "-c", "subagents.max_depth=1")
	if r.code != 0 {
		t.Fatalf("max_depth 1: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	_, kids = shallow.sessions(t)
	if _, ok := kids["b"]; ok || len(kids) != 1 {
		t.Fatalf("max_depth 1 started %v, want only a", kids)
	}
	tos := bodies[events.ToolOutput](t, shallow.records(t, kids["a"].SessionID), events.KindToolOutput)
	if len(tos) != 1 || !strings.Contains(tos[0].Output, "subagents.max_depth is 1") {
		t.Errorf("a's spawn of b: %+v, want refused naming subagents.max_depth", tos)
	}
}
