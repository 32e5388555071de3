package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// Tests against @modelcontextprotocol/server-everything from npm.

func TestEverythingToolsAndCalls(t *testing.T) {
	m := mustStart(t, map[string]ServerConfig{"everything": everythingConfig(t)}, Options{})
	ctx := context.Background()

	var names []string
	tools := m.Tools()
	for _, tl := range tools {
		names = append(names, tl.Qualified)
	}
	for _, want := range []string{"mcp__everything__echo", "mcp__everything__get_sum", "mcp__everything__trigger_long_running_operation"} {
		if !slices.Contains(names, want) {
			t.Fatalf("Tools() = %q; missing %s", names, want)
		}
	}
	if !slices.IsSortedFunc(tools, func(a, b Tool) int { return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Name, b.Name)) }) {
		t.Errorf("Tools() not ordered by server, then raw name: %q", names)
	}

	t.Run("echo routes by recorded provenance", func(t *testing.T) {
		tool, ok := m.Lookup("mcp__everything__echo")
		if !ok || tool.Server != "everything" || tool.Name != "echo" || !tool.ReadOnly || tool.Destructive || tool.Approval != ApprovalAuto {
			t.Fatalf("Lookup(echo) = %+v, %v", tool, ok)
		}
		if !strings.Contains(string(tool.InputSchema), `"message"`) {
			t.Errorf("echo input schema %s lacks the message property", tool.InputSchema)
		}
		if ask, reason := Requirement(tool.Approval, tool); ask {
			t.Errorf("read-only echo needs approval under auto: %s", reason)
		}
		res, err := m.Call(ctx, tool.Server, tool.Name, json.RawMessage(`{"message":"hello docket"}`))
		if err != nil {
			t.Fatalf("echo: %v", err)
		}
		if res.Text != "Echo: hello docket" || res.IsError {
			t.Errorf("echo = %+v", res)
		}
	})

	t.Run("get-sum adds", func(t *testing.T) {
		tool, ok := m.Lookup("mcp__everything__get_sum")
		if !ok || tool.Name != "get-sum" {
			t.Fatalf("Lookup(get_sum) = %+v, %v", tool, ok)
		}
		res, err := m.Call(ctx, tool.Server, tool.Name, json.RawMessage(`{"a":2,"b":40}`))
		if err != nil {
			t.Fatalf("get-sum: %v", err)
		}
		if !strings.Contains(res.Text, "is 42") {
			t.Errorf("get-sum text = %q, want the sum 42", res.Text)
		}
	})

	t.Run("structured content is kept", func(t *testing.T) {
		res, err := m.Call(ctx, "everything", "get-structured-content", json.RawMessage(`{"location":"Chicago"}`))
		if err != nil {
			t.Fatalf("get-structured-content: %v", err)
		}
		var weather struct {
			Temperature float64 `json:"temperature"`
			Conditions  string  `json:"conditions"`
		}
		if err := json.Unmarshal(res.Structured, &weather); err != nil || weather.Temperature != 36 {
			t.Errorf("structured = %s (%v); want temperature 36", res.Structured, err)
		}
		o := Outcome(res, nil)
		if o.Structured != string(res.Structured) || o.IsError {
			t.Errorf("Outcome = %+v", o)
		}
	})

	t.Run("images become a placeholder", func(t *testing.T) {
		res, err := m.Call(ctx, "everything", "get-tiny-image", nil)
		if err != nil {
			t.Fatalf("get-tiny-image: %v", err)
		}
		if !strings.Contains(res.Text, "[image: image/png, ") {
			t.Errorf("text = %q, want an image placeholder", res.Text)
		}
	})

	t.Run("invalid arguments come back as a tool error", func(t *testing.T) {
		res, err := m.Call(ctx, "everything", "get-sum", json.RawMessage(`{"a":"two"}`))
		if err == nil && !res.IsError {
			t.Fatalf("get-sum with a string = %+v; want an error", res)
		}
		if _, ok := ForModel(res, err); ok {
			t.Errorf("ForModel says success for %+v, %v", res, err)
		}
	})

	t.Run("timeout is its own outcome and the server stays usable", func(t *testing.T) {
		m := mustStart(t, map[string]ServerConfig{"slow": withToolTimeout(everythingConfig(t), 2)}, Options{})
		_, err := m.Call(ctx, "slow", "trigger-long-running-operation", json.RawMessage(`{"duration":600,"steps":600}`))
		var ce *CallError
		if !errors.Is(err, ErrTimeout) || !errors.As(err, &ce) || ce.Server != "slow" || ce.Tool != "trigger-long-running-operation" {
			t.Fatalf("long-running call = %v; want a CallError wrapping ErrTimeout", err)
		}
		if o := Outcome(Result{}, err); !o.TimedOut || !o.IsError || !strings.Contains(o.Output, "timed out after 2s") {
			t.Errorf("Outcome = %+v", o)
		}
		res, err := m.Call(ctx, "slow", "echo", json.RawMessage(`{"message":"still here"}`))
		if err != nil || res.Text != "Echo: still here" {
			t.Fatalf("echo after timeout = %+v, %v", res, err)
		}
		if st := m.Status()[0]; st.State != StateRunning || st.Restarts != 0 {
			t.Errorf("status after timeout = %+v; want running, never restarted", st)
		}
	})
}

func withToolTimeout(c ServerConfig, sec float64) ServerConfig {
	c.ToolTimeoutSec = sec
	return c
}

func TestEverythingEnvAndFilters(t *testing.T) {
	cfg := everythingConfig(t)
	cfg.Args = []string{"${TRANSPORT}"} // the everything server's first argument picks its transport
	cfg.Env = map[string]string{"DOCKET_TOKEN": "${MY_SECRET}", "LITERAL": "$${NOT_EXPANDED}"}
	cfg.EnabledTools = []string{"echo", "get-env", "get-sum"}
	cfg.DisabledTools = []string{"get-sum"}
	parent := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TRANSPORT=stdio", "MY_SECRET=s3cret", "OPENAI_API_KEY=must-not-leak"}
	m := mustStart(t, map[string]ServerConfig{"ev": cfg}, Options{Environ: parent})

	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Qualified)
	}
	if want := []string{"mcp__ev__echo", "mcp__ev__get_env"}; !slices.Equal(names, want) {
		t.Errorf("tools after enabled/disabled filters = %q, want %q", names, want)
	}
	if _, err := m.Call(context.Background(), "ev", "get-sum", json.RawMessage(`{"a":1,"b":2}`)); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("calling a disabled tool = %v; want ErrUnknownTool", err)
	}

	res, err := m.Call(context.Background(), "ev", "get-env", nil)
	if err != nil {
		t.Fatalf("get-env: %v", err)
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil {
		t.Fatalf("get-env text is not JSON: %v\n%s", err, res.Text)
	}
	if env["DOCKET_TOKEN"] != "s3cret" || env["LITERAL"] != "${NOT_EXPANDED}" {
		t.Errorf("server env DOCKET_TOKEN=%q LITERAL=%q; want s3cret and ${NOT_EXPANDED}", env["DOCKET_TOKEN"], env["LITERAL"])
	}
	if v, ok := env["OPENAI_API_KEY"]; ok {
		t.Errorf("parent variable OPENAI_API_KEY=%q leaked to the server", v)
	}
}
