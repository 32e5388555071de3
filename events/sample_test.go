package events

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// populatedBodies returns one body per record kind with every field set,
// nested slices and pointers included, so a round trip exercises every tag.
// TestPopulatedBodiesSetEveryField keeps it honest when a field is added.
func populatedBodies() []any {
	usage := Usage{InputTokens: 1200, CachedInputTokens: 300, OutputTokens: 77, ReasoningTokens: 12}
	return []any{
		SessionStarted{
			Version:       FormatVersion,
			SessionID:     "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
			DocketVersion: "0.1.0-dev",
			StartedAt:     1_763_000_000_123_456_789,
			Cwd:           "/home/dev/project",
			Config: SessionConfig{
				ApprovalPolicy:        "on-request",
				SandboxMode:           "workspace-write",
				WritableRoots:         []string{"/home/dev/project", "/tmp/scratch"},
				NetworkAccess:         true,
				ExcludeTmpdirEnvVar:   true,
				ExcludeSlashTmp:       true,
				TmpdirEnv:             "/tmp/user",
				RequireProtectedPaths: true,
				Model:                 "gpt-5-codex",
				ModelProvider:         "openai",
				ToolOutputMaxBytes:    10_000,
				ApprovalTimeoutSec:    300,
				ContextWindow:         272_000,
				AutoCompactTokenLimit: 200_000,
				SubagentMaxDepth:      2,
				SubagentMaxChildren:   8,
			},
			Settings:     []Setting{{Key: "approval_policy", Value: `"on-request"`}, {Key: "model", Value: `"gpt-5-codex"`}},
			Rules:        []RuleSource{{Path: "/home/dev/.docket/rules/default.rules", Text: "prefix_rule(pattern=[\"git\", \"status\"], decision=\"allow\")\n", Project: true}},
			RulesDigest:  "sha256:5f1c0d",
			Instructions: "Be careful. ünïcödé and \x00 bytes survive.",
			Plan: SandboxPlan{
				Mode: "workspace-write", WritableRoots: []string{"/home/dev/project"}, ReadOnlySubpaths: []string{"/home/dev/project/.git"},
				Network: true, RequireProtectedPaths: true, Egress: true, Hidden: []string{"/home/dev/.ssh"}, LocalBinding: true,
				Limits: ResourceLimits{MaxProcesses: 4096, MaxMemoryMB: 8192, MaxCPUSeconds: 3600, MaxFileSizeMB: 8192},
			},
			Tools: []ToolInfo{
				{Name: "shell", Kind: "shell"},
				{Name: "fs__read", Kind: "mcp", Server: "fs", RawName: "read", ReadOnly: true, Destructive: true, Approval: "prompt", ParallelSafe: true,
					Description: "Read a file", Schema: `{"type":"object","properties":{"path":{"type":"string"}}}`,
					Agents: []AgentInfo{{Name: "claude", Command: "claude", Args: []string{"-p", "{prompt}"}, EnvNames: []string{"ANTHROPIC_API_KEY"}, TimeoutMs: 60000, Format: "stream-json"}}},
			},
			Parent: &ParentLink{SessionID: "0199a1b2-0000-7e5f-8a9b-0c1d2e3f4a5b", CallID: "call_9", Name: "reviewer", Depth: 1, Grants: []string{"exec:go test"},
				AllowRules: [][]string{{"go", "test"}}},
			Network: &NetworkRules{Profile: "dev", Enabled: true, Mode: "limited", Domains: []DomainRule{{Host: "example.com", Wildcard: true, Action: "allow", Key: "*.example.com"}},
				UnixSockets: []UnixSocketRule{{Path: "/run/docker.sock", Allow: true}}, AllowLocalBinding: true, Socks5: true, ManagedOnly: true},
		},
		SessionResumed{PID: 4242, Decisions: "approved,denied"},
		PolicyChanged{ApprovalPolicy: "never", Previous: "on-request", Source: SourceUser, Message: "<permissions instructions>\nApproval policy: never.\n</permissions instructions>",
			Permissions: &PermissionsChange{Profile: "dev", Previous: ":workspace", Why: "permission profile dev chosen by /permissions", SandboxMode: "workspace-write",
				WritableRoots: []string{"/work/extra"}, NetworkAccess: true, ExcludeTmpdirEnvVar: true, ExcludeSlashTmp: true,
				Plan: SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/work/proj"}, ReadOnlySubpaths: []string{"/work/proj/.git"},
					Network: true, RequireProtectedPaths: true, Egress: true, Hidden: []string{"/home/dev/.aws"}, LocalBinding: true,
					Limits: ResourceLimits{MaxProcesses: 64, MaxMemoryMB: 512, MaxCPUSeconds: 60, MaxFileSizeMB: 16}},
				Network: &NetworkRules{Profile: "dev", Enabled: true, Mode: "full", Domains: []DomainRule{{Host: "evil.test", Wildcard: true, Action: "deny", Key: "*.evil.test"}},
					UnixSockets: []UnixSocketRule{{Path: "/tmp/s.sock", Allow: true}}, AllowLocalBinding: true, Socks5: true, ManagedOnly: true}}},
		UserTurn{TurnID: "turn-1", Text: "fix the failing test in @main_test.go", Images: []string{"data:image/png;base64,iVBORw0KGgo="},
			Attachments: []Attachment{{Path: "main_test.go", Content: "package main\n", Size: 4096, Truncated: true}}},
		Compaction{TurnID: "turn-1", Trigger: CompactAuto, Summary: "We fixed the test.", KeptPrompt: true, Replaced: 12, ReplacedDigest: "ab12",
			TokensBefore: 190_000, Usage: Usage{InputTokens: 190_000, CachedInputTokens: 1000, OutputTokens: 300, ReasoningTokens: 20}, Error: "model: boom"},
		ModelResponse{
			TurnID:     "turn-1",
			Request:    2,
			ResponseID: "resp_abc",
			Items: []Item{
				{Type: ItemReasoning, ID: "rs_1", Text: "thinking"},
				{Type: ItemMessage, ID: "msg_1", Role: "assistant", Text: "Running the tests."},
				{Type: ItemFunctionCall, ID: "fc_1", CallID: "call_1", Name: "shell", Arguments: `{"command":["go","test"]}`},
				{Type: ItemCustomToolCall, ID: "ct_1", CallID: "call_2", Name: "apply_patch", Input: "*** Begin Patch"},
				{Type: ItemFunctionCallOutput, CallID: "call_0", Output: "ok"},
				{Type: "all", ID: "i", Role: "r", Text: "t", CallID: "c", Name: "n", Arguments: "a", Input: "in", Output: "out", Images: []string{"data:image/png;base64,AA=="}, Status: "completed"},
			},
			Usage:    usage,
			Attempts: 3,
			Error:    "retried after 429",
			Resolved: []ResolvedPath{{CallID: "call_2", Path: "/w/link/a.txt", Real: "/w/real/a.txt"}},
		},
		Decision{
			CallID: "call_1", RequestID: "req_1", Phase: PhaseRetry, Decision: "approved_execpolicy_amendment",
			Source: SourceUser, At: 1_763_000_001_000_000_000, Amendment: []string{"go", "test"}, Feedback: "use make test",
		},
		ExecOutcome{
			CallID: "call_1", Attempt: 2, ExitCode: -1, Signal: "SIGKILL", DurationNs: 1_500_000_000,
			Stdout: "out\n", Stderr: "err\n", Output: "out\nerr\n", Truncated: true, TimedOut: true,
			Denial:       &DenialEvidence{Reason: "landlock", Errno: "EACCES", Path: "/etc/passwd", Signal: "SIGSYS", Message: "Permission denied"},
			Layers:       []string{"landlock", "seccomp", "userns"},
			Error:        "timed out",
			SandboxError: "landlock unavailable",
			Fallbacks:    []string{"namespaces mountns+pidns: clone: operation not permitted"},
			Killed:       "memory_limit",
			Structured:   `{"content":[]}`,
			IsError:      true,
			Agent: &AgentResult{ChildID: "c0ffee", Status: TurnCompleted,
				Decisions: []RoutedDecision{{CallID: "c1", RequestID: "c1/initial", Decision: "approved", Source: SourceUser}}},
			Process: &ProcessPoll{ID: 1001, Running: true, ChunkID: "0a1b2c", OriginalTokens: 12},
		},
		RiskAssessment{CallID: "call_1", RiskLevel: "medium", Description: "writes outside the workspace", Error: "none"},
		Transition{CallID: "call_1", From: "wantsApproval", Event: "run_sandboxed", To: "sandboxed", Cause: "rule_allow", Reason: "an allow rule matched"},
		ApprovalRequested{
			CallID: "call_1", TurnID: "turn-1", RequestID: "req_1", Phase: PhaseInitial, Kind: ApprovalExec,
			Command: []string{"rm", "-rf", "build"}, Cwd: "/home/dev/project", Reason: "needs to delete",
			ProposedAmendment: []string{"rm", "-rf"}, Keys: []string{"exec:rm -rf build"}, Paths: []string{"build"},
			Risk: &RiskAssessment{CallID: "call_1", RiskLevel: "high", Description: "deletes files", Error: "x"},
		},
		ExecStarted{
			CallID: "call_1", Attempt: 1, Tool: "shell", Argv: []string{"bash", "-lc", "go test ./..."}, Cwd: "/home/dev/project",
			Sandbox: SandboxPlan{
				Mode: "workspace-write", WritableRoots: []string{"/home/dev/project"}, ReadOnlySubpaths: []string{"/home/dev/project/.git"},
				Network: true, RequireProtectedPaths: true, Egress: true, Hidden: []string{"/home/dev/.ssh"}, LocalBinding: true,
				Limits: ResourceLimits{MaxProcesses: 4096, MaxMemoryMB: 8192, MaxCPUSeconds: 3600, MaxFileSizeMB: 8192},
			},
			TimeoutMs: 10_000, Input: "stdin text", Server: "fs", MCPTool: "read_file",
			Process: &ProcessCall{ID: 1001, Tty: true, YieldMs: 250, MaxOutputTokens: 10_000, Chars: "print(1)\n", StartedBy: "call_0", Evicts: []int{1000}},
			Agent: &AgentSpawn{ChildID: "c0ffee", Name: "reviewer", Prompt: "review", Depth: 1,
				Config: SessionConfig{ApprovalPolicy: "untrusted", SandboxMode: "read-only", WritableRoots: []string{"/w"}, NetworkAccess: true,
					ExcludeTmpdirEnvVar: true, ExcludeSlashTmp: true, TmpdirEnv: "/t", RequireProtectedPaths: true, Model: "m", ModelProvider: "p",
					ToolOutputMaxBytes: 1, ApprovalTimeoutSec: 2, SubagentMaxDepth: 1, SubagentMaxChildren: 3,
					ContextWindow: 128_000, AutoCompactTokenLimit: 100_000}},
		},
		ToolOutput{CallID: "call_1", Type: ItemFunctionCallOutput, Output: "Exit code: 0\nok", Success: true},
		ModelRequest{TurnID: "turn-1", Request: 3, Digest: "sha256:abcdef", ItemCount: 14, Model: "gpt-5-codex"},
		Grant{CallID: "call_1", RequestID: "req_1", Keys: []string{"exec:go test", "exec:go vet"}},
		RuleAmended{CallID: "call_1", Pattern: []string{"go", "test"}, Line: `prefix_rule(pattern=["go", "test"], decision="allow")`, File: "/home/dev/.docket/rules/default.rules", Written: true},
		TurnEnded{TurnID: "turn-1", Status: TurnCompleted, Message: "All tests pass.", Usage: usage},
		ProcessEnded{ID: 1001, CallID: "call_0", How: ProcessEvicted, Reason: "the session keeps at most 16 processes running"},
		InvalidCall{TurnID: "turn-1", Request: 2, Position: 1, CallID: "c1", Name: "shell",
			Reason: "call_id \"c1\" is given to 2 calls of this response", Output: "Invalid call at position 1: call_id \"c1\" is given to 2 calls"},
		HookVerdict{CallID: "call_1", Stage: HookPreTool, Hook: 2, Name: "no-push", Command: []string{"/hooks/no-push.sh", "-v"},
			Decision: HookDeny, Reason: "pushing is not allowed here", ExitCode: 2, DurationNs: 12_000_000,
			Error: "timed out after 5s", Sandbox: SandboxReadOnly},
		NetworkDecision{CallID: "call_1", Conn: 3, Host: "pypi.org", Port: 443, Protocol: "http-connect", Method: "GET",
			Answer: NetworkAllowAlways, Source: SourceUser, Profile: "dev", RuleWritten: `permissions.dev.network.domains."pypi.org"`},
		NetworkConnection{CallID: "call_1", Conn: 3, Protocol: "http-connect", Host: "pypi.org", Port: 443, Method: "GET", Allowed: true,
			Rule: "user: allow_always", Addr: "151.101.0.223:443", SNI: "pypi.org", Refusals: 2},
	}
}

// zeroBodies returns the zero value of every body kind.
func zeroBodies() []any {
	var out []any
	for _, k := range Kinds() {
		b, _ := NewBody(k)
		out = append(out, reflect.ValueOf(b).Elem().Interface())
	}
	return out
}

// emptyBodies returns every body with each slice set to a non-nil empty
// slice and each pointer to a zero struct: the encodings differ from nil, so
// they must survive a round trip as well.
func emptyBodies() []any {
	var out []any
	for _, k := range Kinds() {
		b, _ := NewBody(k)
		fillEmpty(reflect.ValueOf(b).Elem())
		out = append(out, reflect.ValueOf(b).Elem().Interface())
	}
	return out
}

func fillEmpty(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fillEmpty(v.Field(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEmpty(v.Elem())
	}
}

// unsetFields lists the paths of zero-valued fields in v, descending into
// structs, slice elements and pointers.
func unsetFields(path string, v reflect.Value) []string {
	switch v.Kind() {
	case reflect.Struct:
		var out []string
		for i := 0; i < v.NumField(); i++ {
			out = append(out, unsetFields(path+"."+v.Type().Field(i).Name, v.Field(i))...)
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return []string{path}
		}
		return unsetFields(path, v.Elem())
	case reflect.Slice:
		if v.Len() == 0 {
			return []string{path}
		}
		var out []string
		for i := 0; i < v.Len(); i++ {
			out = append(out, unsetFields(fmt.Sprintf("%s[%d]", path, i), v.Index(i))...)
		}
		return out
	}
	if v.IsZero() {
		return []string{path}
	}
	return nil
}

func TestPopulatedBodiesSetEveryField(t *testing.T) {
	seen := map[RecordKind]bool{}
	for _, b := range populatedBodies() {
		k, ok := KindOf(b)
		if !ok {
			t.Fatalf("%T is not a body", b)
		}
		seen[k] = true
		var unset []string
		for _, p := range unsetFields(reflect.TypeOf(b).Name(), reflect.ValueOf(b)) {
			// Items and tools are unions: each type sets its own subset,
			// and the last element of each sets them all.
			if (!strings.Contains(p, ".Items[") || strings.Contains(p, ".Items[5]")) &&
				(!strings.Contains(p, ".Tools[") || strings.Contains(p, ".Tools[1]")) {
				unset = append(unset, p)
			}
		}
		if len(unset) > 0 {
			t.Errorf("sample %s leaves fields unset: %s", k, strings.Join(unset, ", "))
		}
	}
	for _, k := range Kinds() {
		if !seen[k] {
			t.Errorf("no populated sample for kind %s", k)
		}
	}
}
