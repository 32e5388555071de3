package events

// FormatVersion is the journal format this build writes and the newest it
// can read.
const FormatVersion = 1

// Setting is one configuration key and its value, rendered as TOML text.
// Settings are kept as a sorted slice, never a map.
type Setting struct {
	Key   string `msgpack:"key"`
	Value string `msgpack:"value"`
}

// RuleSource is one rules file in force when a session started, with its
// whole text, so a journal replays without the files that produced it.
type RuleSource struct {
	Path string `msgpack:"path"`
	Text string `msgpack:"text"`
	// Project marks a file from the workspace (<project>/.docket/rules):
	// its allow rules may skip the prompt but never lift the sandbox.
	Project bool `msgpack:"project,omitempty"`
}

// SessionConfig is the decision-relevant configuration of a session.
type SessionConfig struct {
	ApprovalPolicy        string   `msgpack:"approval_policy"`
	SandboxMode           string   `msgpack:"sandbox_mode"`
	WritableRoots         []string `msgpack:"writable_roots,omitempty"`
	NetworkAccess         bool     `msgpack:"network_access,omitempty"`
	ExcludeTmpdirEnvVar   bool     `msgpack:"exclude_tmpdir_env_var,omitempty"`
	ExcludeSlashTmp       bool     `msgpack:"exclude_slash_tmp,omitempty"`
	TmpdirEnv             string   `msgpack:"tmpdir_env,omitempty"`
	RequireProtectedPaths bool     `msgpack:"require_protected_paths,omitempty"`
	Model                 string   `msgpack:"model,omitempty"`
	ModelProvider         string   `msgpack:"model_provider,omitempty"`
	ToolOutputMaxBytes    int64    `msgpack:"tool_output_max_bytes,omitempty"`
	ApprovalTimeoutSec    int64    `msgpack:"approval_timeout_sec,omitempty"`
	// ContextWindow is the model's context window in tokens when the
	// configuration set it (model_context_window); 0 uses Docket's table.
	ContextWindow int64 `msgpack:"context_window,omitempty"`
	// AutoCompactTokenLimit is the context size, in tokens, at which the
	// engine compacts the conversation before its next model request
	// (model_auto_compact_token_limit); 0 means never automatically.
	AutoCompactTokenLimit int64 `msgpack:"auto_compact_token_limit,omitempty"`
	// SubagentMaxDepth and SubagentMaxChildren bound spawn_agent (0: the
	// engine's defaults): how deep a tree of subagents may grow, and how
	// many subagents one session may start.
	SubagentMaxDepth    int `msgpack:"subagent_max_depth,omitempty"`
	SubagentMaxChildren int `msgpack:"subagent_max_children,omitempty"`
}

// SessionStarted opens every journal. It carries the format version, the
// configuration and the rules in force.
type SessionStarted struct {
	Version       uint32        `msgpack:"version"`
	SessionID     string        `msgpack:"session_id"`
	DocketVersion string        `msgpack:"docket_version"`
	StartedAt     int64         `msgpack:"started_at"`
	Cwd           string        `msgpack:"cwd"`
	Config        SessionConfig `msgpack:"config"`
	Settings      []Setting     `msgpack:"settings,omitempty"`
	Rules         []RuleSource  `msgpack:"rules,omitempty"`
	RulesDigest   string        `msgpack:"rules_digest,omitempty"`
	Instructions  string        `msgpack:"instructions,omitempty"`
	// Plan is the workspace sandbox plan computed once at start (writable
	// roots, protected subpaths), so replay does not depend on the disk.
	Plan SandboxPlan `msgpack:"plan"`
	// Tools lists the tools the model was offered, MCP provenance included.
	Tools []ToolInfo `msgpack:"tools,omitempty"`
	// Parent is set for a subagent: the session and call that started it.
	Parent *ParentLink `msgpack:"parent,omitempty"`
	// Network are the egress proxy's rules when Plan.Egress: the start
	// profile's network rules, which a resumed session serves whatever its
	// configuration says now. Nil without a proxy, and in older journals.
	Network *NetworkRules `msgpack:"network,omitempty"`
}

// ToolInfo records one tool offered to the model and where it routes.
type ToolInfo struct {
	Name         string `msgpack:"name"`
	Kind         string `msgpack:"kind"`
	Server       string `msgpack:"server,omitempty"`
	RawName      string `msgpack:"raw_name,omitempty"`
	ReadOnly     bool   `msgpack:"read_only,omitempty"`
	Destructive  bool   `msgpack:"destructive,omitempty"`
	Approval     string `msgpack:"approval,omitempty"`
	ParallelSafe bool   `msgpack:"parallel_safe,omitempty"`
	Description  string `msgpack:"description,omitempty"`
	Schema       string `msgpack:"schema,omitempty"`
	// Agents are the external agent CLIs the run_agent tool may start
	// (docket agents run), recorded so that replay rebuilds the tool
	// without the configuration.
	Agents []AgentInfo `msgpack:"agents,omitempty"`
}

// AgentInfo is one [agents.NAME] definition as the run_agent tool uses it.
// The values of its environment are not recorded (they are often
// credentials), only their names.
type AgentInfo struct {
	Name      string   `msgpack:"name"`
	Command   string   `msgpack:"command"`
	Args      []string `msgpack:"args,omitempty"`
	EnvNames  []string `msgpack:"env_names,omitempty"`
	TimeoutMs int64    `msgpack:"timeout_ms"`
	Format    string   `msgpack:"format"`
}

// SessionResumed marks where a new process took over a session (after a
// crash, or to answer a parked approval). Replay restarts the engine here.
type SessionResumed struct {
	PID       int    `msgpack:"pid"`
	Decisions string `msgpack:"decisions,omitempty"`
}

// PolicyChanged records the user changing the session's approval policy
// between turns (the interactive /approvals command). It is an input:
// resume and replay apply it at the same point, so later decisions are
// made under the policy the user chose.
type PolicyChanged struct {
	ApprovalPolicy string         `msgpack:"approval_policy"`
	Previous       string         `msgpack:"previous"`
	Source         DecisionSource `msgpack:"source"`
	// Message is the developer message that told the model the new
	// policy; it joined the conversation here, and resume and replay add
	// it back from this record. Journals from before it was sent have
	// none, and their sessions go on without it.
	Message string `msgpack:"message,omitempty"`
	// Permissions is set when the user switched the permission profile
	// (/permissions): the sandbox the later calls run under. Nil for an
	// approval policy change alone.
	Permissions *PermissionsChange `msgpack:"permissions,omitempty"`
}

// PermissionsChange is a switch of the session's permission profile: the
// profile, the sandbox keys it stands for, and the plan built from them
// when the user switched, which the later calls run under (write-ahead,
// as the session_started plan is for the calls before).
type PermissionsChange struct {
	Profile  string `msgpack:"profile"`
	Previous string `msgpack:"previous"`
	// Why says which keys decided (the profile, and a sandbox_mode it
	// wins over), as --explain and the audit say it.
	Why                 string      `msgpack:"why,omitempty"`
	SandboxMode         string      `msgpack:"sandbox_mode"`
	WritableRoots       []string    `msgpack:"writable_roots,omitempty"`
	NetworkAccess       bool        `msgpack:"network_access,omitempty"`
	ExcludeTmpdirEnvVar bool        `msgpack:"exclude_tmpdir_env_var,omitempty"`
	ExcludeSlashTmp     bool        `msgpack:"exclude_slash_tmp,omitempty"`
	Plan                SandboxPlan `msgpack:"plan"`
	// Network are the egress proxy's rules for the calls that follow when
	// Plan.Egress: the switched profile's network rules, which resume and
	// replay put back without the configuration. Nil without a proxy, and
	// in older journals.
	Network *NetworkRules `msgpack:"network,omitempty"`
}

// UserTurn records a prompt from the user that starts a turn.
type UserTurn struct {
	TurnID string `msgpack:"turn_id"`
	Text   string `msgpack:"text"`
	// Images are the prompt's images as data URLs (exec --image).
	Images []string `msgpack:"images,omitempty"`
	// Attachments are the files the prompt's @ references named, with the
	// content read when the prompt was sent: replay and resume feed these
	// back instead of reading the disk again.
	Attachments []Attachment `msgpack:"attachments,omitempty"`
}

// Attachment is one file attached to a prompt by an @ reference.
type Attachment struct {
	// Path is the file as the prompt named it, relative to the workspace.
	Path string `msgpack:"path" json:"path"`
	// Content is the file's text, cut at the per-file cap when Truncated.
	Content   string `msgpack:"content" json:"content"`
	Size      int64  `msgpack:"size" json:"size"` // the whole file's size in bytes
	Truncated bool   `msgpack:"truncated,omitempty" json:"truncated,omitempty"`
}

// ModelResponse records the model's whole answer to one request.
type ModelResponse struct {
	TurnID     string `msgpack:"turn_id"`
	Request    int    `msgpack:"request"`
	ResponseID string `msgpack:"response_id,omitempty"`
	Items      []Item `msgpack:"items"`
	Usage      Usage  `msgpack:"usage"`
	Attempts   int    `msgpack:"attempts,omitempty"`
	Error      string `msgpack:"error,omitempty"`
	// Resolved holds, for each path a call of this response would write
	// (apply_patch), where it really leads on disk, read when the response
	// arrived. The decision logic judges these instead of reading the disk,
	// so replay decides the same. Journals written before it have none.
	Resolved []ResolvedPath `msgpack:"resolved,omitempty"`
}

// ResolvedPath is one path of a call, as written and as the kernel would
// resolve it (symlinks, even dangling ones, and "..").
type ResolvedPath struct {
	CallID string `msgpack:"call_id"`
	Path   string `msgpack:"path"`
	Real   string `msgpack:"real"`
}

// Decision records an answer to an approval request.
type Decision struct {
	CallID    string         `msgpack:"call_id"`
	RequestID string         `msgpack:"request_id"`
	Phase     Phase          `msgpack:"phase"`
	Decision  ReviewDecision `msgpack:"decision"`
	Source    DecisionSource `msgpack:"source"`
	At        int64          `msgpack:"at"`
	Amendment []string       `msgpack:"amendment,omitempty"`
	// Feedback is what the user typed with a denial; the model is told it.
	Feedback string `msgpack:"feedback,omitempty"`
}

// DenialEvidence explains why a failed sandboxed run is judged a sandbox
// denial rather than an ordinary failure.
type DenialEvidence struct {
	Reason  string `msgpack:"reason" json:"reason"`
	Errno   string `msgpack:"errno,omitempty" json:"errno,omitempty"`
	Path    string `msgpack:"path,omitempty" json:"path,omitempty"`
	Signal  string `msgpack:"signal,omitempty" json:"signal,omitempty"`
	Message string `msgpack:"message,omitempty" json:"message,omitempty"`
}

// ExecOutcome records what running a call produced: a process's exit, a
// patch's application, or an MCP tool's result.
type ExecOutcome struct {
	CallID       string          `msgpack:"call_id"`
	Attempt      int             `msgpack:"attempt"`
	ExitCode     int             `msgpack:"exit_code"`
	Signal       string          `msgpack:"signal,omitempty"`
	DurationNs   int64           `msgpack:"duration_ns"`
	Stdout       string          `msgpack:"stdout,omitempty"`
	Stderr       string          `msgpack:"stderr,omitempty"`
	Output       string          `msgpack:"output,omitempty"`
	Truncated    bool            `msgpack:"truncated,omitempty"`
	TimedOut     bool            `msgpack:"timed_out,omitempty"`
	Denial       *DenialEvidence `msgpack:"denial,omitempty"`
	Layers       []string        `msgpack:"layers,omitempty"`
	Error        string          `msgpack:"error,omitempty"`
	SandboxError string          `msgpack:"sandbox_error,omitempty"`
	// Fallbacks lists the sandbox setups refused before the command
	// existed, strongest first, each as "what was refused: why".
	Fallbacks []string `msgpack:"fallbacks,omitempty"`
	// Killed says which resource limit ended the command ("memory_limit",
	// "cpu_limit", "file_size_limit"); it is not a denial.
	Killed     string `msgpack:"killed,omitempty"`
	Structured string `msgpack:"structured,omitempty"`
	IsError    bool   `msgpack:"is_error,omitempty"`
	// Agent is set for a spawn_agent call: how the child ended.
	Agent *AgentResult `msgpack:"agent,omitempty"`
	// Process is set for exec_command and write_stdin: what the call
	// collected from its long-lived process.
	Process *ProcessPoll `msgpack:"process,omitempty"`
}

// RiskAssessment records the model's assessment of a denied command.
type RiskAssessment struct {
	CallID      string `msgpack:"call_id"`
	RiskLevel   string `msgpack:"risk_level,omitempty"`
	Description string `msgpack:"description,omitempty"`
	Error       string `msgpack:"error,omitempty"`
}

// Transition records one move of a call's state machine.
type Transition struct {
	CallID string `msgpack:"call_id"`
	From   string `msgpack:"from"`
	Event  string `msgpack:"event"`
	To     string `msgpack:"to"`
	Cause  string `msgpack:"cause"`
	Reason string `msgpack:"reason"`
}

// ApprovalRequested records that an approval request went out.
type ApprovalRequested struct {
	CallID            string          `msgpack:"call_id"`
	TurnID            string          `msgpack:"turn_id"`
	RequestID         string          `msgpack:"request_id"`
	Phase             Phase           `msgpack:"phase"`
	Kind              ApprovalKind    `msgpack:"kind"`
	Command           []string        `msgpack:"command,omitempty"`
	Cwd               string          `msgpack:"cwd"`
	Reason            string          `msgpack:"reason,omitempty"`
	ProposedAmendment []string        `msgpack:"proposed_amendment,omitempty"`
	Keys              []string        `msgpack:"keys"`
	Paths             []string        `msgpack:"paths,omitempty"`
	Risk              *RiskAssessment `msgpack:"risk,omitempty"`
}

// SandboxPlan is what a run is allowed to do. Mode SandboxNone means no
// sandbox.
type SandboxPlan struct {
	Mode                  SandboxMode `msgpack:"mode" json:"mode"`
	WritableRoots         []string    `msgpack:"writable_roots,omitempty" json:"writable_roots,omitempty"`
	ReadOnlySubpaths      []string    `msgpack:"read_only_subpaths,omitempty" json:"read_only_subpaths,omitempty"`
	Network               bool        `msgpack:"network,omitempty" json:"network"`
	RequireProtectedPaths bool        `msgpack:"require_protected_paths,omitempty" json:"require_protected_paths,omitempty"`
	// Limits are the resource limits the command runs under; the zero
	// value (old journals) means none.
	Limits ResourceLimits `msgpack:"limits,omitempty" json:"limits,omitempty"`
	// Egress says the network goes only through the session's egress
	// proxy: an empty network namespace with a bridge to it (Network is
	// false: no direct network at all).
	Egress bool `msgpack:"egress,omitempty" json:"egress,omitempty"`
	// Hidden are the paths a permission profile's none rules hide, globs
	// expanded and symlinks resolved when the plan was built: each is
	// covered with an empty read-only directory or file.
	Hidden []string `msgpack:"hidden,omitempty" json:"hidden,omitempty"`
	// LocalBinding lets a command whose network goes through the egress
	// proxy bind and listen on TCP ports of its own namespace's loopback
	// (the profile's allow_local_binding); without it Landlock refuses
	// every TCP bind. Meaningful only with Egress.
	LocalBinding bool `msgpack:"local_binding,omitempty" json:"local_binding,omitempty"`
}

// ResourceLimits bounds what one sandboxed call may use; a zero field means
// no limit of that kind.
type ResourceLimits struct {
	// MaxProcesses bounds the tasks (processes and threads) alive at once.
	MaxProcesses int64 `msgpack:"max_processes,omitempty" json:"max_processes,omitempty"`
	// MaxMemoryMB bounds the memory of the whole call, in MiB.
	MaxMemoryMB int64 `msgpack:"max_memory_mb,omitempty" json:"max_memory_mb,omitempty"`
	// MaxCPUSeconds bounds the CPU time of each process.
	MaxCPUSeconds int64 `msgpack:"max_cpu_seconds,omitempty" json:"max_cpu_seconds,omitempty"`
	// MaxFileSizeMB bounds the size of any file a process writes, in MiB.
	MaxFileSizeMB int64 `msgpack:"max_file_size_mb,omitempty" json:"max_file_size_mb,omitempty"`
}

// IsZero reports whether no limit is set (msgpack's omitempty uses it).
func (l ResourceLimits) IsZero() bool { return l == ResourceLimits{} }

// Sandboxed reports whether the plan restricts the process at all.
func (p SandboxPlan) Sandboxed() bool { return p.Mode != "" && p.Mode != SandboxNone }

// ExecStarted is the write-ahead record: it is durable before the process
// (or patch write, or MCP call) starts.
type ExecStarted struct {
	CallID    string      `msgpack:"call_id"`
	Attempt   int         `msgpack:"attempt"`
	Tool      string      `msgpack:"tool"`
	Argv      []string    `msgpack:"argv,omitempty"`
	Cwd       string      `msgpack:"cwd"`
	Sandbox   SandboxPlan `msgpack:"sandbox"`
	TimeoutMs int64       `msgpack:"timeout_ms,omitempty"`
	Input     string      `msgpack:"input,omitempty"`
	Server    string      `msgpack:"server,omitempty"`
	MCPTool   string      `msgpack:"mcp_tool,omitempty"`
	// Agent is set for a spawn_agent call: the child it starts.
	Agent *AgentSpawn `msgpack:"agent,omitempty"`
	// Process is set for exec_command and write_stdin: the long-lived
	// process the call starts or writes to.
	Process *ProcessCall `msgpack:"process,omitempty"`
}

// ToolOutput records the result text sent back to the model for a call.
type ToolOutput struct {
	CallID  string `msgpack:"call_id"`
	Type    string `msgpack:"type"`
	Output  string `msgpack:"output"`
	Success bool   `msgpack:"success"`
}

// InvalidCall records a tool call the engine refused before anything ran
// because it could not be told apart from the response's other calls or the
// session's earlier ones: no call id, a call id given twice, a call id the
// session has already used, or one that is not printable. Such a call has
// no state machine (its id cannot key one); the model is told Output.
// Position is the call's index among the response's tool calls, from 0,
// and names it when CallID cannot.
type InvalidCall struct {
	TurnID   string `msgpack:"turn_id"`
	Request  int    `msgpack:"request"`
	Position int    `msgpack:"position"`
	CallID   string `msgpack:"call_id"`
	Name     string `msgpack:"name"`
	Reason   string `msgpack:"reason"`
	Output   string `msgpack:"output"`
}

// ModelRequest records that a request was sent to the model.
type ModelRequest struct {
	TurnID    string `msgpack:"turn_id"`
	Request   int    `msgpack:"request"`
	Digest    string `msgpack:"digest"`
	ItemCount int    `msgpack:"item_count"`
	Model     string `msgpack:"model,omitempty"`
}

// Grant records approval keys granted for the rest of the session.
type Grant struct {
	CallID    string   `msgpack:"call_id"`
	RequestID string   `msgpack:"request_id"`
	Keys      []string `msgpack:"keys"`
}

// RuleAmended records a prefix rule the user chose to save.
type RuleAmended struct {
	CallID  string   `msgpack:"call_id"`
	Pattern []string `msgpack:"pattern"`
	Line    string   `msgpack:"line"`
	File    string   `msgpack:"file"`
	Written bool     `msgpack:"written"`
}

// TurnEnded closes a turn.
type TurnEnded struct {
	TurnID  string     `msgpack:"turn_id"`
	Status  TurnStatus `msgpack:"status"`
	Message string     `msgpack:"message,omitempty"`
	Usage   Usage      `msgpack:"usage"`
}

// Compaction trigger values.
const (
	CompactManual = "manual" // the user asked (/compact)
	CompactAuto   = "auto"   // the context crossed the auto-compact limit
)

// Compaction records the model's summary of the conversation that replaced
// it. It is an input: replay feeds the recorded summary back instead of
// asking a model, and resume rebuilds the conversation from it.
type Compaction struct {
	// TurnID is the turn it happened in (auto), or the turn it followed
	// (manual; "" before the first turn).
	TurnID  string `msgpack:"turn_id"`
	Trigger string `msgpack:"trigger"`
	// Summary is the model's summary; the conversation is replaced by one
	// user message holding it.
	Summary string `msgpack:"summary,omitempty"`
	// KeptPrompt is set when the prompt of the turn under way (an
	// automatic compaction's) was kept verbatim before the summary.
	KeptPrompt bool `msgpack:"kept_prompt,omitempty"`
	// Replaced is how many conversation items the summary replaced, and
	// ReplacedDigest the running hash of those items, so an audit can say
	// what was summarised.
	Replaced       int    `msgpack:"replaced"`
	ReplacedDigest string `msgpack:"replaced_digest"`
	// TokensBefore is the context size in tokens before compaction.
	TokensBefore int64 `msgpack:"tokens_before"`
	Usage        Usage `msgpack:"usage"`
	// Error, when set, is why the summary could not be had; the
	// conversation was left as it was.
	Error string `msgpack:"error,omitempty"`
}

// HookStage says when a hook ran: before the call was decided, or after it
// ran.
type HookStage string

// The two hook stages.
const (
	HookPreTool  HookStage = "pre_tool"
	HookPostTool HookStage = "post_tool"
)

// HookDecision is what a hook's answer came to, after on_error was applied
// to a hook that failed.
type HookDecision string

// Hook decisions. HookAllow leaves the call to the policy; HookDeny stops
// it (pre_tool) or adds the hook's reason to its output (post_tool);
// HookAsk forces an approval prompt (pre_tool only).
const (
	HookAllow HookDecision = "allow"
	HookDeny  HookDecision = "deny"
	HookAsk   HookDecision = "ask"
)

// HookVerdict records what one configured hook answered about one call. It
// is an input: verify replay feeds the recorded verdicts back and never runs
// the hooks again.
type HookVerdict struct {
	CallID string    `msgpack:"call_id"`
	Stage  HookStage `msgpack:"stage"`
	// Hook is the hook's position in its [[hooks.STAGE]] list, from 1, and
	// Name its name (the command's base name unless configured).
	Hook     int          `msgpack:"hook"`
	Name     string       `msgpack:"name"`
	Command  []string     `msgpack:"command"`
	Decision HookDecision `msgpack:"decision"`
	// Reason is the hook's own words (its stderr on exit 2, its JSON
	// "reason"), or what went wrong when it failed.
	Reason     string `msgpack:"reason,omitempty"`
	ExitCode   int    `msgpack:"exit_code"`
	DurationNs int64  `msgpack:"duration_ns"`
	// Error is set when the hook failed (could not start, crashed, timed
	// out, printed something that is not an answer): Decision is then the
	// hook's on_error.
	Error string `msgpack:"error,omitempty"`
	// Sandbox is the sandbox mode the hook ran under ("none" when
	// configured with sandbox = false).
	Sandbox SandboxMode `msgpack:"sandbox"`
}
