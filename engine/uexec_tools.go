package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/cmdsafety"
	"github.com/docket-engine/docket/states/policy"
	"github.com/docket-engine/docket/states/rules"
)

// The unified exec tools' names, as Codex offers them.
const (
	ExecCommandName = "exec_command"
	WriteStdinName  = "write_stdin"
)

// Codex's bounds on how long a call waits for output (codex-rs
// unified_exec): exec_command 250 ms to 30 s (10 s by default); a write
// 250 ms by default, at most 30 s; an empty poll 5 s to 300 s.
const (
	execYieldDefaultMs = 10_000
	yieldMinMs         = 250
	yieldMaxMs         = 30_000
	writeYieldDefault  = 250
	pollYieldMinMs     = 5_000
	pollYieldMaxMs     = 300_000
	// DefaultMaxOutputTokens is a chunk's budget when the model gives none.
	DefaultMaxOutputTokens = 10_000
	// MaxOutputTokensCap is the largest budget a call may ask for: about
	// 200 KB of output in one answer.
	MaxOutputTokensCap = 50_000
	// MaxLiveProcesses is how many processes a session keeps running at
	// once; exec_command past it ends the oldest (docs/decisions.md).
	MaxLiveProcesses = 16
)

// ExecCommandTool is Codex's exec_command: a command string run by a shell,
// with pipes or a pty, that may outlive the call.
type ExecCommandTool struct{}

// Spec describes exec_command as Codex 0.171 does.
func (ExecCommandTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        ExecCommandName,
		Kind:        model.ToolFunction,
		Description: "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"cmd":{"type":"string","description":"Shell command to execute."},` +
			`"justification":{"type":"string","description":"User-facing approval question for ` + "`require_escalated`" + `; omit otherwise."},` +
			`"login":{"type":"boolean","description":"Request login-shell startup. Omit to inherit."},` +
			`"max_output_tokens":{"type":"number","description":"Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy."},` +
			`"prefix_rule":{"type":"array","items":{"type":"string"},"description":"Reusable approval prefix for ` + "`cmd`" + `, only with ` + "`sandbox_permissions: \\\"require_escalated\\\"`" + `."},` +
			`"sandbox_permissions":{"type":"string","enum":["use_default","require_escalated"],"description":"Per-command sandbox override. Defaults to ` + "`use_default`" + `; use ` + "`require_escalated`" + ` for unsandboxed execution."},` +
			`"shell":{"type":"string","description":"Shell binary to launch. Defaults to bash."},` +
			`"tty":{"type":"boolean","description":"True allocates a PTY for the command; false or omitted uses plain pipes."},` +
			`"workdir":{"type":"string","description":"Working directory for the command. Defaults to the turn cwd."},` +
			`"yield_time_ms":{"type":"number","description":"Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms."}},` +
			`"required":["cmd"],"additionalProperties":false}`),
	}
}

// ParallelSafe: no. Session ids are handed out in call order, so replay
// hands out the same.
func (ExecCommandTool) ParallelSafe() bool { return false }

type execCommandArgs struct {
	Cmd                string   `json:"cmd"`
	Workdir            string   `json:"workdir"`
	Login              *bool    `json:"login"`
	Shell              string   `json:"shell"`
	Tty                bool     `json:"tty"`
	YieldTimeMs        *float64 `json:"yield_time_ms"`
	MaxOutputTokens    *float64 `json:"max_output_tokens"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
	PrefixRule         []string `json:"prefix_rule"`
}

// Prepare judges the command string as Codex does: as the script of
// `bash -lc`, through the same rules, known-safe list, escalation and
// approvals as shell.
func (ExecCommandTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	if c.Kind != model.ToolFunction {
		return nil, fmt.Errorf("%s is a function tool; it was called as a %s tool", ExecCommandName, c.Kind)
	}
	var a execCommandArgs
	if err := decodeStrict(c.Payload, &a); err != nil {
		return nil, fmt.Errorf("arguments are not valid %s arguments: %w", ExecCommandName, err)
	}
	if strings.TrimSpace(a.Cmd) == "" {
		return nil, errors.New("cmd is empty: give the command line to run")
	}
	if strings.IndexByte(a.Cmd, 0) >= 0 {
		return nil, errors.New("cmd contains a NUL byte")
	}
	switch a.SandboxPermissions {
	case "", "use_default", "require_escalated":
	default:
		return nil, fmt.Errorf("sandbox_permissions %q: want use_default or require_escalated", a.SandboxPermissions)
	}
	shell, err := shellBinary(a.Shell)
	if err != nil {
		return nil, err
	}
	flag := "-lc"
	if a.Login != nil && !*a.Login {
		flag = "-c"
	}
	argv := []string{shell, flag, a.Cmd}
	cwd, err := resolveWorkdir(env.Cwd, a.Workdir)
	if err != nil {
		return nil, err
	}
	yield, err := clampMs("yield_time_ms", a.YieldTimeMs, execYieldDefaultMs, yieldMinMs, yieldMaxMs)
	if err != nil {
		return nil, err
	}
	budget, err := tokenBudget(a.MaxOutputTokens)
	if err != nil {
		return nil, err
	}
	escalated := a.SandboxPermissions == "require_escalated"
	req := env.Decider.ExecRequirement(argv, escalated, a.Justification)
	if p := modelPrefixRule(a.PrefixRule, argv); escalated && req.Kind == policy.NeedsApproval && p != nil {
		req.ProposedAmendment = p
	}
	return &PreparedCall{
		ApprovalKind:  events.ApprovalExec,
		Command:       argv,
		Cwd:           cwd,
		Keys:          []string{env.Decider.ExecKey(argv, cwd, a.SandboxPermissions)},
		Requirement:   req,
		Escalated:     escalated,
		Justification: a.Justification,
		Retryable:     true,
		Start: events.ExecStarted{Tool: ExecCommandName, Argv: argv, Cwd: cwd,
			Process: &events.ProcessCall{Tty: a.Tty, YieldMs: yield, MaxOutputTokens: budget}},
		Shape: shapeProcess,
	}, nil
}

// shellBinary is the shell exec_command runs: bash unless the model names
// bash, sh or zsh (the shells whose scripts Docket parses for safety).
func shellBinary(name string) (string, error) {
	if name == "" {
		return "bash", nil
	}
	switch filepath.Base(name) {
	case "bash", "sh", "zsh":
		return filepath.Base(name), nil
	}
	return "", fmt.Errorf("shell %q: Docket runs bash, sh or zsh", name)
}

// WriteStdinTool is Codex's write_stdin: it writes to a process an earlier
// exec_command left running and returns what the process printed since.
type WriteStdinTool struct{}

// Spec describes write_stdin as Codex 0.171 does.
func (WriteStdinTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        WriteStdinName,
		Kind:        model.ToolFunction,
		Description: "Writes characters to an existing unified exec session and returns recent output.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"chars":{"type":"string","description":"Bytes to write to stdin. Defaults to empty, which polls without writing."},` +
			`"max_output_tokens":{"type":"number","description":"Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy."},` +
			`"session_id":{"type":"number","description":"Identifier of the running unified exec session."},` +
			`"yield_time_ms":{"type":"number","description":"Wait before yielding output. Non-empty writes default to 250 ms and cap at 30000 ms; empty polls wait 5000-300000 ms by default."}},` +
			`"required":["session_id"],"additionalProperties":false}`),
	}
}

// ParallelSafe: no; writes to one process keep their order.
func (WriteStdinTool) ParallelSafe() bool { return false }

type writeStdinArgs struct {
	SessionID       *float64 `json:"session_id"`
	Chars           string   `json:"chars"`
	YieldTimeMs     *float64 `json:"yield_time_ms"`
	MaxOutputTokens *float64 `json:"max_output_tokens"`
}

// Prepare finds the process and checks the characters. It asks nothing:
// the process was approved when it started, and runs on under that plan.
func (WriteStdinTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	if c.Kind != model.ToolFunction {
		return nil, fmt.Errorf("%s is a function tool; it was called as a %s tool", WriteStdinName, c.Kind)
	}
	if !utf8.ValidString(c.Payload) {
		return nil, errors.New("arguments are not valid UTF-8")
	}
	var a writeStdinArgs
	if err := decodeStrict(c.Payload, &a); err != nil {
		return nil, fmt.Errorf("arguments are not valid %s arguments: %w", WriteStdinName, err)
	}
	if a.SessionID == nil {
		return nil, errors.New("session_id is missing")
	}
	id := int(*a.SessionID)
	if float64(id) != *a.SessionID || id <= 0 {
		return nil, fmt.Errorf("session_id %v: want the positive whole number exec_command returned", *a.SessionID)
	}
	if strings.IndexByte(a.Chars, 0) >= 0 {
		return nil, errors.New("chars contains a NUL byte, which cannot be reviewed safely")
	}
	if strings.ContainsRune(a.Chars, utf8.RuneError) && !strings.ContainsRune(c.Payload, utf8.RuneError) &&
		!strings.Contains(strings.ToLower(c.Payload), `\ufffd`) {
		return nil, errors.New("chars holds an unpaired UTF-16 surrogate; send valid text")
	}
	info, ok := lookupProcess(env, id)
	switch {
	case !ok:
		return nil, fmt.Errorf("write_stdin failed: Unknown process id %d", id)
	case info.Status == procLost:
		return nil, fmt.Errorf("write_stdin failed: process %d (started by call %s) was lost: the docket that ran it stopped (a crash, a kill or the end of the session) before this session was resumed, and it was not run again; start it again with exec_command if you still need it", id, info.CallID)
	case info.Status == procClosed:
		return nil, fmt.Errorf("write_stdin failed: process %d (started by call %s) was ended when its session closed; start it again with exec_command if you still need it", id, info.CallID)
	case info.Status == procEvicted:
		return nil, fmt.Errorf("write_stdin failed: process %d was ended to make room: a session keeps at most %d processes running", id, MaxLiveProcesses)
	case info.Status != procRunning:
		return nil, fmt.Errorf("write_stdin failed: Unknown process id %d", id)
	}
	if a.Chars != "" && !info.Tty {
		return nil, errors.New("write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open")
	}
	def, lo, hi := int64(writeYieldDefault), int64(yieldMinMs), int64(yieldMaxMs)
	if a.Chars == "" {
		def, lo, hi = pollYieldMinMs, pollYieldMinMs, pollYieldMaxMs
	}
	yield, err := clampMs("yield_time_ms", a.YieldTimeMs, def, lo, hi)
	if err != nil {
		return nil, err
	}
	budget, err := tokenBudget(a.MaxOutputTokens)
	if err != nil {
		return nil, err
	}
	plan := info.Plan
	return &PreparedCall{
		ApprovalKind: events.ApprovalExec,
		Command:      info.Argv,
		Cwd:          info.Cwd,
		Requirement: policy.Requirement{Kind: policy.Skip, Cause: states.CauseAlreadyApproved,
			Reason: fmt.Sprintf("writes to process %d, which call %s started under its approved plan", id, info.CallID)},
		Plan:      &plan,
		Arguments: fmt.Sprintf("session %d <- %q", id, a.Chars),
		Start: events.ExecStarted{Tool: WriteStdinName, Cwd: info.Cwd, Input: a.Chars,
			Process: &events.ProcessCall{ID: id, Tty: info.Tty, YieldMs: yield, MaxOutputTokens: budget, Chars: a.Chars, StartedBy: info.CallID}},
		Shape: shapeProcess,
	}, nil
}

func lookupProcess(env *Env, id int) (ProcessInfo, bool) {
	if env.Process == nil {
		return ProcessInfo{}, false
	}
	return env.Process(id)
}

// decodeStrict decodes one JSON object, refusing unknown fields.
func decodeStrict(payload string, v any) error {
	dec := json.NewDecoder(strings.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// clampMs reads a wait in milliseconds: absent is def; negative or not a
// number is an error; otherwise it is brought into [lo, hi] (Codex clamps
// rather than refuses).
func clampMs(name string, v *float64, def, lo, hi int64) (int64, error) {
	if v == nil {
		return def, nil
	}
	if *v != *v || *v < 0 {
		return 0, fmt.Errorf("%s %v: want a number of milliseconds, 0 or more", name, *v)
	}
	ms := int64(hi)
	if *v < float64(hi) {
		ms = int64(*v)
	}
	return max(lo, ms), nil
}

// tokenBudget reads max_output_tokens: absent is the default, negative is
// an error, huge is capped.
func tokenBudget(v *float64) (int, error) {
	if v == nil {
		return DefaultMaxOutputTokens, nil
	}
	if *v != *v || *v < 0 {
		return 0, fmt.Errorf("max_output_tokens %v: want a number of tokens, 0 or more", *v)
	}
	if *v > MaxOutputTokensCap {
		return MaxOutputTokensCap, nil
	}
	return int(*v), nil
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// shapeProcess renders a poll the way Codex 0.171 shows it to the model.
func shapeProcess(o events.ExecOutcome) (string, bool) {
	if o.Process == nil || o.SandboxError != "" {
		return shapeExec(o, 0)
	}
	if o.Error != "" {
		return "write_stdin failed: " + o.Error, false
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Chunk ID: %s\n", o.Process.ChunkID)
	fmt.Fprintf(&b, "Wall time: %.4f seconds\n", float64(o.DurationNs)/1e9)
	ok := true
	if o.Process.Running {
		fmt.Fprintf(&b, "Process running with session ID %d\n", o.Process.ID)
	} else {
		fmt.Fprintf(&b, "Process exited with code %d\n", o.ExitCode)
		ok = o.ExitCode == 0
	}
	fmt.Fprintf(&b, "Original token count: %d\n", o.Process.OriginalTokens)
	b.WriteString("Output:\n")
	b.WriteString(o.Output)
	return b.String(), ok
}

// modelPrefixRule is the model's prefix_rule when Docket may offer it to
// the user as the rule to save: a prefix of one plain command of the
// script, and not one that would allow too much (rules.OverBroad). The
// user still decides; otherwise Docket's own proposal stands.
func modelPrefixRule(prefix, argv []string) []string {
	if len(prefix) == 0 || rules.OverBroad(prefix) {
		return nil
	}
	cmds, ok := cmdsafety.Commands(argv)
	if !ok {
		return nil
	}
	for _, c := range cmds {
		if len(c) >= len(prefix) && slices.Equal(c[:len(prefix)], prefix) {
			return slices.Clone(prefix)
		}
	}
	return nil
}
