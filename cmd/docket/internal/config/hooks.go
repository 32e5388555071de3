package config

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/events"
)

// HooksConfig is the [hooks] table: [[hooks.pre_tool]] and
// [[hooks.post_tool]]. Unlike other array keys, a layer's lists add to the
// lower layers' (see addsUp): a project cannot drop the operator's hooks.
type HooksConfig struct {
	PreTool  []Hook `toml:"pre_tool"`
	PostTool []Hook `toml:"post_tool"`
}

// Hook is one [[hooks.pre_tool]] or [[hooks.post_tool]] entry.
type Hook struct {
	Name       string   `toml:"name"`
	Tool       string   `toml:"tool"`
	ArgvPrefix []string `toml:"argv_prefix"`
	Command    []string `toml:"command"`
	TimeoutSec float64  `toml:"timeout_sec"`
	// OnError is "deny" (the default) or "allow".
	OnError string `toml:"on_error"`
	// Sandbox, unset or true, runs the hook under a read-only sandbox.
	Sandbox *bool `toml:"sandbox"`
	// Protocol is how the hook is told the call and answers: "docket"
	// (the default) or "codex" (Codex's PreToolUse JSON; shell tools only).
	Protocol string `toml:"protocol"`
	// pins are a trusted project hook's files as trusted (hooks.Spec.Pins);
	// set by the review, never by a config file.
	pins []hooks.Pin
}

// onErrorValues are the spellings of on_error.
func onErrorValues() []string { return []string{"deny", "allow"} }

// protocolValues are the spellings of protocol.
func protocolValues() []string { return []string{"docket", hooks.ProtocolCodex} }

// checkHooks validates every hook: a tool (name or glob), a command, a
// known on_error, a sane timeout.
func checkHooks(c *Config) error {
	at := func(key ...string) Source {
		s, _ := c.Sources.Of(joinKey(key))
		return s
	}
	for _, stage := range []struct {
		name string
		list []Hook
	}{{"pre_tool", c.Hooks.PreTool}, {"post_tool", c.Hooks.PostTool}} {
		src := at("hooks", stage.name)
		for i, h := range stage.list {
			key := func(k string) []string { return []string{"hooks", stage.name, fmt.Sprint(i + 1), k} }
			switch {
			case h.Tool == "":
				return src.errorf(key("tool"), "", "missing (a tool name or glob such as \"shell\" or \"*\") in hook %d", i+1)
			case len(h.Command) == 0 || h.Command[0] == "":
				return src.errorf(key("command"), "", "missing (the hook's argv, e.g. [\"/path/to/hook.sh\"]) in hook %d", i+1)
			case h.OnError != "" && h.OnError != "deny" && h.OnError != "allow":
				return src.errorf(key("on_error"), "", "%s", notOneOf(h.OnError, "on_error value", onErrorValues()))
			case !(h.TimeoutSec >= 0 && h.TimeoutSec <= maxTimeoutSec) || math.IsNaN(h.TimeoutSec):
				return src.errorf(key("timeout_sec"), "", "%v is not a number of seconds between 0 and %d", h.TimeoutSec, maxTimeoutSec)
			}
			if h.Protocol != "" && !slices.Contains(protocolValues(), h.Protocol) {
				return src.errorf(key("protocol"), "", "%s", notOneOf(h.Protocol, "protocol", protocolValues()))
			}
			if h.Protocol == hooks.ProtocolCodex && (stage.name != "pre_tool" || !slices.Contains(hooks.CodexTools(), h.Tool)) {
				return src.errorf(key("protocol"), "", "a codex-protocol hook is a pre_tool hook of tool %s (Codex's Bash) in hook %d",
					strings.Join(hooks.CodexTools(), " or "), i+1)
			}
			if _, err := path.Match(h.Tool, ""); err != nil {
				return src.errorf(key("tool"), "", "%q is not a valid glob: %v", h.Tool, err)
			}
		}
	}
	return nil
}

// Specs returns the configured hooks as engine/hooks runs them.
func (h HooksConfig) Specs() (pre, post []hooks.Spec) {
	conv := func(list []Hook) []hooks.Spec {
		var out []hooks.Spec
		for _, x := range list {
			s := hooks.Spec{Name: x.Name, Tool: x.Tool, ArgvPrefix: x.ArgvPrefix, Command: x.Command,
				Timeout: time.Duration(x.TimeoutSec * float64(time.Second)), OnError: events.HookDeny}
			if x.OnError == "allow" {
				s.OnError = events.HookAllow
			}
			s.Unsandboxed = x.Sandbox != nil && !*x.Sandbox
			s.Pins = x.pins
			if x.Protocol == hooks.ProtocolCodex {
				s.Protocol = hooks.ProtocolCodex
			}
			out = append(out, s)
		}
		return out
	}
	return conv(h.PreTool), conv(h.PostTool)
}
