package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/events"
)

func TestHooksLoadAsSpecsWithSafeDefaults(t *testing.T) {
	c := mustLoad(t, LoadOptions{Home: homeWith(t, `
[[hooks.pre_tool]]
tool = "shell"
argv_prefix = ["git", "push"]
command = ["/hooks/no-push.sh", "-v"]
timeout_sec = 2.5

[[hooks.pre_tool]]
name = "audit-all"
tool = "*"
command = ["/hooks/log.sh"]
on_error = "allow"
sandbox = false

[[hooks.post_tool]]
tool = "mcp__*"
command = ["/hooks/post.sh"]
`)})
	pre, post := c.Hooks.Specs()
	want := []hooks.Spec{
		{Tool: "shell", ArgvPrefix: []string{"git", "push"}, Command: []string{"/hooks/no-push.sh", "-v"}, Timeout: 2500 * time.Millisecond, OnError: events.HookDeny},
		{Name: "audit-all", Tool: "*", Command: []string{"/hooks/log.sh"}, OnError: events.HookAllow, Unsandboxed: true},
	}
	if !reflect.DeepEqual(pre, want) {
		t.Errorf("pre_tool specs\n got %+v\nwant %+v", pre, want)
	}
	if len(post) != 1 || post[0].Tool != "mcp__*" || post[0].OnError != events.HookDeny || post[0].Unsandboxed {
		t.Errorf("post_tool specs %+v: want one, sandboxed, on_error deny", post)
	}
	found := false
	for _, s := range c.Settings() {
		if s.Key == "hooks.post_tool" {
			found = s.Value == `[{command = ['/hooks/post.sh'], tool = 'mcp__*'}]`
		}
	}
	if !found {
		t.Errorf("the hooks are not one line each in the settings: %v", c.Settings())
	}
}
