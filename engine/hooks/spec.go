package hooks

import (
	"path"
	"slices"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/cmdsafety"
)

// DefaultTimeout bounds a hook configured without timeout_sec.
const DefaultTimeout = 30 * time.Second

// Spec is one configured hook ([[hooks.pre_tool]] or [[hooks.post_tool]]).
type Spec struct {
	// Name labels the hook in the journal, the audit and the model's
	// output; empty means the base name of Command[0].
	Name string
	// Tool is a tool name or a path.Match glob ("shell", "mcp__*", "*").
	Tool string
	// ArgvPrefix, when set, narrows the hook to calls whose argv, or one of
	// the plain commands of their shell script, begins with it.
	ArgvPrefix []string
	// Command is the hook's argv.
	Command []string
	// Timeout ends the hook's whole process group; zero means DefaultTimeout.
	Timeout time.Duration
	// OnError is the verdict of a hook that failed: HookDeny or HookAllow.
	OnError events.HookDecision
	// Unsandboxed runs the hook without the sandbox; by default it runs
	// under a read-only sandbox without network.
	Unsandboxed bool
	// Protocol is how the hook is told the call and answers: "" for
	// Docket's (Call, answer), ProtocolCodex for Codex's PreToolUse.
	Protocol string
	// Pins are the paths its command names as they were when the user
	// trusted it (a project's hook); the hook runs only while they hold,
	// else it fails (on_error decides) without running.
	Pins []Pin
}

// label is the hook's name for people.
func (s Spec) label() string {
	if s.Name != "" {
		return s.Name
	}
	if len(s.Command) > 0 {
		return path.Base(s.Command[0])
	}
	return "hook"
}

func (s Spec) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

func (s Spec) onError() events.HookDecision {
	if s.OnError == events.HookAllow {
		return events.HookAllow
	}
	return events.HookDeny
}

// Matches reports whether the hook applies to a call of tool with argv. A
// shell script Docket cannot split into plain commands matches any
// argv_prefix: a hook meant to stop "git push" must not be dodged by
// writing the push in a way the parser gives up on.
func (s Spec) Matches(tool string, argv []string) bool {
	if ok, err := path.Match(s.Tool, tool); err != nil || !ok {
		return false
	}
	if len(s.ArgvPrefix) == 0 {
		return true
	}
	if hasPrefix(argv, s.ArgvPrefix) {
		return true
	}
	if len(argv) == 0 {
		return false
	}
	cmds, ok := cmdsafety.Commands(argv)
	if !ok {
		_, _, wrapped := cmdsafety.ShellScript(argv)
		return wrapped
	}
	return slices.ContainsFunc(cmds, func(c []string) bool { return hasPrefix(c, s.ArgvPrefix) })
}

func hasPrefix(argv, prefix []string) bool {
	return len(argv) >= len(prefix) && slices.Equal(argv[:len(prefix)], prefix)
}
