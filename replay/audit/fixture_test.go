package audit

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/states"
)

// t0 is when every fixture session starts; each record is one second later
// than the one before, so times in goldens are stable.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const (
	fixtureCwd   = "/work/proj"
	fixtureRules = "/home/dev/.docket/rules/default.rules"
)

// writer builds a real journal the way the engine writes one: records are
// buffered and made durable at the engine's durability points.
type writer struct {
	tb   testing.TB
	home string
	id   string
	path string
	j    *journal.Journal
	now  time.Time
	last uint64
}

func newWriter(tb testing.TB, id string, cfg events.SessionConfig) *writer {
	tb.Helper()
	return newWriterWith(tb, id, cfg, nil)
}

// newWriterWith starts a journal whose session_started record carries
// settings.
func newWriterWith(tb testing.TB, id string, cfg events.SessionConfig, settings []events.Setting) *writer {
	tb.Helper()
	plan := events.SandboxPlan{Mode: events.SandboxMode(cfg.SandboxMode), WritableRoots: []string{fixtureCwd, "/tmp"}, ReadOnlySubpaths: []string{fixtureCwd + "/.git"}, Network: cfg.NetworkAccess}
	return newWriterPlan(tb, id, cfg, plan, settings)
}

// newWriterPlan starts a journal whose session_started record carries
// plan as it is given (a crafted one too) and settings.
func newWriterPlan(tb testing.TB, id string, cfg events.SessionConfig, plan events.SandboxPlan, settings []events.Setting) *writer {
	tb.Helper()
	home := tb.TempDir()
	j, err := journal.Create(home, id, t0)
	if err != nil {
		tb.Fatal(err)
	}
	w := &writer{tb: tb, home: home, id: id, j: j, path: j.Path(), now: t0}
	w.durable("", events.SessionStarted{
		Version: events.FormatVersion, SessionID: id, DocketVersion: "0.1.0-test", StartedAt: t0.UnixNano(), Cwd: fixtureCwd,
		Config: cfg, Plan: plan, Settings: settings,
		Rules: []events.RuleSource{{Path: fixtureRules, Text: "# house rules\n" +
			"prefix_rule(pattern=[\"git\", \"status\"], decision=\"allow\")\n" +
			"prefix_rule(pattern=[\"git\", \"push\"], decision=\"allow\", justification=\"pushes are fine here\")\n"}},
		RulesDigest: "sha256:4e1f0c9a",
	})
	return w
}

func (w *writer) add(callID string, body any) uint64 {
	w.tb.Helper()
	w.now = w.now.Add(time.Second)
	r, err := w.j.Append(w.now, callID, body)
	if err != nil {
		w.tb.Fatal(err)
	}
	w.last = r.Seq
	return r.Seq
}

func (w *writer) durable(callID string, body any) uint64 {
	w.tb.Helper()
	seq := w.add(callID, body)
	if err := w.j.Commit(); err != nil {
		w.tb.Fatal(err)
	}
	return seq
}

// close commits and closes the journal and returns its path.
func (w *writer) close() string {
	w.tb.Helper()
	if err := w.j.Close(); err != nil {
		w.tb.Fatal(err)
	}
	return w.path
}

// crash drops what is buffered, as a killed process would, and reopens the
// journal as a resumed session does.
func (w *writer) crash() {
	w.tb.Helper()
	if err := w.j.Abandon(); err != nil {
		w.tb.Fatal(err)
	}
	j, err := journal.Open(w.path)
	if err != nil {
		w.tb.Fatal(err)
	}
	w.j = j
}

func (w *writer) response(turn string, req int, items ...events.Item) {
	w.durable("", events.ModelRequest{TurnID: turn, Request: req, Digest: "d", ItemCount: req})
	w.add("", events.ModelResponse{TurnID: turn, Request: req, Items: items})
}

func shellItem(id string, args map[string]any) events.Item {
	b, _ := json.Marshal(args)
	return events.Item{Type: events.ItemFunctionCall, CallID: id, Name: "shell", Arguments: string(b)}
}

func (w *writer) tr(id string, from states.State, ev states.Event, cause states.Cause, reason string) {
	w.tb.Helper()
	to, ok := states.Next(from, ev)
	if !ok {
		to = states.Done // a deliberately broken journal may record anything
	}
	w.add(id, events.Transition{CallID: id, From: string(from), Event: string(ev), To: string(to), Cause: string(cause), Reason: reason})
}

func (w *writer) ask(id string, phase events.Phase, kind events.ApprovalKind, cmd []string, reason string) {
	w.durable(id, events.ApprovalRequested{CallID: id, TurnID: "turn-1", RequestID: id + "/" + phase.String(), Phase: phase, Kind: kind,
		Command: cmd, Cwd: fixtureCwd, Reason: reason, Keys: []string{"k:" + id}})
}

func (w *writer) decide(id string, phase events.Phase, decision events.ReviewDecision, source events.DecisionSource) {
	w.add(id, events.Decision{CallID: id, RequestID: id + "/" + phase.String(), Phase: phase, Decision: decision, Source: source,
		At: w.now.Add(time.Second).UnixNano()})
}

func (w *writer) start(id string, attempt int, tool string, argv []string, plan events.SandboxPlan) {
	w.durable(id, events.ExecStarted{CallID: id, Attempt: attempt, Tool: tool, Argv: argv, Cwd: fixtureCwd, Sandbox: plan, TimeoutMs: 10_000})
}

func (w *writer) outcome(id string, attempt, exit int, layers []string, denial *events.DenialEvidence) {
	w.add(id, events.ExecOutcome{CallID: id, Attempt: attempt, ExitCode: exit, DurationNs: 42e6, Output: "out\n", Layers: layers, Denial: denial})
}

func (w *writer) output(id string, ok bool) {
	w.add(id, events.ToolOutput{CallID: id, Type: events.ItemFunctionCallOutput, Output: "result", Success: ok})
}

var (
	wsPlan   = events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{fixtureCwd, "/tmp"}}
	noPlan   = events.SandboxPlan{Mode: "none"}
	fsLayers = []string{"landlock:v7", "seccomp", "netns", "mountns"}
	erofs    = &events.DenialEvidence{Reason: "write outside the writable roots", Errno: "EROFS", Path: "/etc/x",
		Message: "touch: cannot touch '/etc/x': Read-only file system"}
)

// mixedSession writes one session with a call of every kind the engine
// produces under on-failure / workspace-write, plus one the engine must
// never produce (c9). It returns the journal's path.
func mixedSession(tb testing.TB) string {
	w := newWriter(tb, "0199a1b2-0000-7000-8000-00000000a001", events.SessionConfig{ApprovalPolicy: "on-failure", SandboxMode: "workspace-write",
		WritableRoots: []string{fixtureCwd}})
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "tidy up and ship"})
	w.response("turn-1", 1,
		shellItem("c1", map[string]any{"command": []string{"ls", "-la"}}),
		shellItem("c2", map[string]any{"command": []string{"rm", "-rf", "/work/proj/build"}}),
	)
	// c1: known safe, runs in the sandbox, succeeds.
	w.tr("c1", states.WantsApproval, states.RunSandboxed, states.CauseKnownSafe, "known-safe command")
	w.start("c1", 1, "shell", []string{"ls", "-la"}, wsPlan)
	w.outcome("c1", 1, 0, fsLayers, nil)
	w.tr("c1", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c1", true)
	// c2: dangerous, the user denies it.
	w.tr("c2", states.WantsApproval, states.Ask, states.CauseDangerous, "rm -rf needs approval")
	w.ask("c2", events.PhaseInitial, events.ApprovalExec, []string{"rm", "-rf", "/work/proj/build"}, "rm -rf needs approval")
	w.decide("c2", events.PhaseInitial, "denied", events.SourceUser)
	w.tr("c2", states.AwaitingDecision, states.Deny, states.CauseUserDenied, "the user denied it")
	w.tr("c2", states.Denied, states.Finish, states.CauseUserDenied, "the user denied it")
	w.output("c2", false)

	w.response("turn-1", 2,
		shellItem("c3", map[string]any{"command": []string{"bash", "-lc", "touch /etc/x"}}),
		shellItem("c4", map[string]any{"command": []string{"git", "push"}, "workdir": "."}),
		events.Item{Type: events.ItemFunctionCall, CallID: "c5", Name: "mcp__fs__read", Arguments: `{"path":"/etc/hosts"}`},
	)
	// c3: the sandbox denies the write; the user approves the retry.
	cmd3 := []string{"bash", "-lc", "touch /etc/x"}
	w.tr("c3", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
	w.start("c3", 1, "shell", cmd3, wsPlan)
	w.outcome("c3", 1, 1, fsLayers, erofs)
	w.tr("c3", states.Sandboxed, states.SandboxDenied, states.CauseSandboxDenial, "sandbox denied it: write outside the writable roots")
	w.tr("c3", states.RetryPrompt, states.Ask, states.CauseSandboxDenial, "command failed; retry without sandbox?")
	w.ask("c3", events.PhaseRetry, events.ApprovalExec, cmd3, "command failed; retry without sandbox?")
	w.decide("c3", events.PhaseRetry, "approved", events.SourceUser)
	w.tr("c3", states.AwaitingDecision, states.RunUnsandboxed, states.CauseUserApproved, "user approved running it without the sandbox")
	w.start("c3", 2, "shell", cmd3, noPlan)
	w.outcome("c3", 2, 0, nil, nil)
	w.tr("c3", states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c3", true)
	// c4: an allow rule bypasses the sandbox.
	w.tr("c4", states.WantsApproval, states.RunUnsandboxed, states.CauseRuleAllow, "allowed by a rule")
	w.start("c4", 1, "shell", []string{"git", "push"}, noPlan)
	w.outcome("c4", 1, 0, nil, nil)
	w.tr("c4", states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c4", true)
	// c5: an MCP tool, approved through --decisions, runs out of process.
	w.tr("c5", states.WantsApproval, states.Ask, states.CauseNeedsApproval, "MCP tool fs/read needs approval")
	w.ask("c5", events.PhaseInitial, events.ApprovalMCP, []string{"mcp__fs__read"}, "MCP tool fs/read needs approval")
	w.decide("c5", events.PhaseInitial, "approved", events.SourceFlag)
	w.tr("c5", states.AwaitingDecision, states.RunUnsandboxed, states.CauseOutOfProcess, "approved by decisions_flag")
	w.durable("c5", events.ExecStarted{CallID: "c5", Attempt: 1, Tool: "mcp__fs__read", Cwd: fixtureCwd, Sandbox: noPlan, Server: "fs", MCPTool: "read", Input: `{"path":"/etc/hosts"}`})
	w.outcome("c5", 1, 0, nil, nil)
	w.tr("c5", states.Unsandboxed, states.Finish, states.CauseCompleted, "ok")
	w.output("c5", true)

	w.response("turn-1", 3,
		shellItem("c6", map[string]any{"command": []string{"curl", "-sO", "https://example.com/schema.json"}, "sandbox_permissions": "require_escalated", "justification": "needs the network to fetch the schema"}),
	)
	// c6: the model asks for escalation; the user approves it for the session.
	cmd6 := []string{"curl", "-sO", "https://example.com/schema.json"}
	w.tr("c6", states.WantsApproval, states.Ask, states.CauseEscalationRequested, "needs the network to fetch the schema")
	w.ask("c6", events.PhaseInitial, events.ApprovalExec, cmd6, "needs the network to fetch the schema")
	w.decide("c6", events.PhaseInitial, "approved_for_session", events.SourceTerminal)
	w.add("c6", events.Grant{CallID: "c6", RequestID: "c6/initial", Keys: []string{"k:c6"}})
	w.tr("c6", states.AwaitingDecision, states.RunUnsandboxed, states.CauseUserApprovedForSession, "approved by terminal")
	w.start("c6", 1, "shell", cmd6, noPlan)
	w.outcome("c6", 1, 0, nil, nil)
	w.tr("c6", states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c6", true)

	w.response("turn-1", 4,
		shellItem("c7", map[string]any{"command": cmd6, "sandbox_permissions": "require_escalated", "justification": "again"}),
		events.Item{Type: events.ItemFunctionCall, CallID: "c8", Name: "shel", Arguments: `{"command":["ls"]}`},
		shellItem("c9", map[string]any{"command": []string{"make", "deploy"}, "sandbox_permissions": "require_escalated"}),
	)
	// c7: the same escalated command runs on the session grant.
	w.tr("c7", states.WantsApproval, states.RunUnsandboxed, states.CauseSessionGrant, "approved for this session earlier")
	w.start("c7", 1, "shell", cmd6, noPlan)
	w.outcome("c7", 1, 0, nil, nil)
	w.tr("c7", states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c7", true)
	// c8: an unknown tool is an invalid call.
	w.tr("c8", states.WantsApproval, states.Fail, states.CauseInvalidCall, `unknown tool "shel"`)
	w.output("c8", false)
	// c9: a broken engine ran the model's escalation request unasked.
	w.tr("c9", states.WantsApproval, states.RunUnsandboxed, states.CauseEscalationRequested, "the model asked for it")
	w.start("c9", 1, "shell", []string{"make", "deploy"}, noPlan)
	w.outcome("c9", 1, 2, nil, nil)
	w.tr("c9", states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 2")
	w.output("c9", false)

	w.response("turn-1", 5,
		shellItem("c10", map[string]any{"command": []string{"rm", "-rf", "/work/proj/.cache"}}),
		shellItem("c11", map[string]any{"command": []string{"go", "test", "./..."}}),
	)
	// c10: approved first, denied by the sandbox, retried without asking.
	cmd10 := []string{"rm", "-rf", "/work/proj/.cache"}
	w.tr("c10", states.WantsApproval, states.Ask, states.CauseDangerous, "rm -rf needs approval")
	w.ask("c10", events.PhaseInitial, events.ApprovalExec, cmd10, "rm -rf needs approval")
	w.decide("c10", events.PhaseInitial, "approved", events.SourceUser)
	w.tr("c10", states.AwaitingDecision, states.RunSandboxed, states.CauseUserApproved, "approved by user")
	w.start("c10", 1, "shell", cmd10, wsPlan)
	w.outcome("c10", 1, 1, fsLayers, &events.DenialEvidence{Reason: "seccomp", Signal: "SIGSYS"})
	w.tr("c10", states.Sandboxed, states.SandboxDenied, states.CauseSandboxDenial, "sandbox denied it: seccomp")
	w.tr("c10", states.RetryPrompt, states.RunUnsandboxed, states.CauseAlreadyApproved, "the user approved this call already; running it again without the sandbox")
	w.start("c10", 2, "shell", cmd10, noPlan)
	w.outcome("c10", 2, 0, nil, nil)
	w.tr("c10", states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("c10", true)
	// c11: running when the process dies; the resumed session interrupts it.
	w.tr("c11", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
	w.start("c11", 1, "shell", []string{"go", "test", "./..."}, wsPlan)
	w.crash()
	w.tr("c11", states.Sandboxed, states.Interrupt, states.CauseCrashRecovery, "found in flight after a crash; outcome unknown; not run again")
	w.output("c11", false)
	w.durable("", events.TurnEnded{TurnID: "turn-1", Status: events.TurnCompleted})

	w.add("", events.UserTurn{TurnID: "turn-2", Text: "one more"})
	w.response("turn-2", 6,
		shellItem("c12", map[string]any{"command": []string{"rm", "-f", "notes.txt"}}),
		shellItem("c13", map[string]any{"command": []string{"rm", "-rf", "dist"}}),
	)
	// c12: no answer in time: a time-out, not a user denial.
	w.tr("c12", states.WantsApproval, states.Ask, states.CauseDangerous, "rm -f needs approval")
	w.ask("c12", events.PhaseInitial, events.ApprovalExec, []string{"rm", "-f", "notes.txt"}, "rm -f needs approval")
	w.decide("c12", events.PhaseInitial, "timed_out", events.SourceTimeout)
	w.tr("c12", states.AwaitingDecision, states.Deny, states.CauseApprovalTimeout, "no decision arrived in time; not run")
	w.tr("c12", states.Denied, states.Finish, states.CauseApprovalTimeout, "no decision arrived in time; not run")
	w.output("c12", false)
	// c13: parked, waiting for a decision.
	w.tr("c13", states.WantsApproval, states.Ask, states.CauseDangerous, "rm -rf needs approval")
	w.ask("c13", events.PhaseInitial, events.ApprovalExec, []string{"rm", "-rf", "dist"}, "rm -rf needs approval")
	w.durable("", events.TurnEnded{TurnID: "turn-2", Status: events.TurnParked})
	return w.close()
}

// dangerSession writes a session under never / danger-full-access.
func dangerSession(tb testing.TB) string {
	w := newWriter(tb, "0199a1b2-0000-7000-8000-00000000d001", events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "danger-full-access", NetworkAccess: true})
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "build"})
	w.response("turn-1", 1, shellItem("d1", map[string]any{"command": []string{"make"}}))
	w.tr("d1", states.WantsApproval, states.RunUnsandboxed, states.CauseDangerFullAccess, "sandbox mode danger-full-access")
	w.start("d1", 1, "shell", []string{"make"}, noPlan)
	w.outcome("d1", 1, 0, nil, nil)
	w.tr("d1", states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("d1", true)
	w.durable("", events.TurnEnded{TurnID: "turn-1", Status: events.TurnCompleted})
	return w.close()
}
