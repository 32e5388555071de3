// Package mcptest is a small MCP server of Docket's own for tests: it echoes,
// reports its pid, sleeps (and counts how many sleeps overlap), and crashes on
// demand, so that tests can exercise timeouts, crash detection, restarts and
// call serialisation without depending on npm servers.
//
// The server runs inside any test binary: call RunIfServer first thing in
// TestMain, and point a server config at Command/Args/Env from Config.
package mcptest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvServer is the environment variable that turns a test binary into the
// test server; its value selects the startup mode (see the Mode constants).
const EnvServer = "DOCKET_MCPTEST_SERVER"

// Startup modes, the values of EnvServer.
const (
	// ModeServe serves normally.
	ModeServe = "serve"
	// ModeExitAtStart writes a message to stderr and exits with status 2
	// before reading anything, so the client's initialize fails.
	ModeExitAtStart = "exit-at-start"
	// ModeHangAtStart never answers initialize, so the client's startup
	// timeout fires.
	ModeHangAtStart = "hang-at-start"
)

// Tool names the server offers. OddTool and LongTool exist to exercise name
// qualification: they are not valid model tool names as they stand.
const (
	EchoTool  = "echo"
	StatsTool = "stats"
	PIDTool   = "pid"
	SleepTool = "sleep"
	CrashTool = "crash"
	WipeTool  = "wipe"
	OddTool   = "odd.name/with spaces"
	LongTool  = "a_tool_name_that_is_long_enough_to_push_the_qualified_name_past_sixty_four_bytes"
)

// StartupMessage is what ModeExitAtStart writes to stderr before exiting.
const StartupMessage = "mcptest: refusing to start (exit-at-start)"

// RunIfServer serves MCP on stdin/stdout and exits the process when EnvServer
// is set; otherwise it returns at once. Call it at the top of TestMain.
func RunIfServer() {
	mode, ok := os.LookupEnv(EnvServer)
	if !ok {
		return
	}
	os.Exit(serve(mode))
}

// Config returns the command, arguments and environment that start the test
// server from the running (test) binary in the given mode.
func Config(mode string) (command string, args []string, env map[string]string) {
	// -test.run=^$ keeps a test binary from running tests should RunIfServer
	// be missing from its TestMain; the server exits before flags matter.
	return os.Args[0], []string{"-test.run=^$"}, map[string]string{EnvServer: mode}
}

func serve(mode string) int {
	switch mode {
	case ModeExitAtStart:
		fmt.Fprintln(os.Stderr, StartupMessage)
		return 2
	case ModeHangAtStart:
		// Block without reading stdin; the client kills us. (A bare
		// select{} would trip the runtime's deadlock detector.)
		for {
			time.Sleep(time.Hour)
		}
	}
	s := NewServer()
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	return 0
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type sleepArgs struct {
	Ms int `json:"ms" jsonschema:"how long to sleep, in milliseconds; 0 sleeps until cancelled"`
}

type crashArgs struct {
	Code int `json:"code" jsonschema:"exit status"`
}

type pidOut struct {
	PID int `json:"pid"`
}

// Stats is what StatsTool returns as structured content.
type Stats struct {
	// ActiveSleepers counts sleep calls in progress; MaxSleepers is the most
	// that were ever in progress at once.
	ActiveSleepers int `json:"active_sleepers"`
	MaxSleepers    int `json:"max_sleepers"`
}

// sleepers tracks concurrent sleep calls, so tests can see whether calls
// overlapped without measuring time.
type sleepers struct {
	mu          sync.Mutex
	active, max int
}

func (s *sleepers) enter() {
	s.mu.Lock()
	s.active++
	s.max = max(s.max, s.active)
	s.mu.Unlock()
}

func (s *sleepers) leave() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
}

func (s *sleepers) stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{ActiveSleepers: s.active, MaxSleepers: s.max}
}

// NewServer returns the test server with its tools registered, for tests that
// want to run it in-process over another transport.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0.0"}, nil)
	yes, no := true, false
	var sl sleepers
	mcp.AddTool(s, &mcp.Tool{
		Name:        EchoTool,
		Description: "Echoes its text back, prefixed with \"echo: \".",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no},
	}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return text("echo: " + a.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        PIDTool,
		Description: "Reports the server's process id.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, pidOut, error) {
		return nil, pidOut{PID: os.Getpid()}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        SleepTool,
		Description: "Sleeps for ms milliseconds, or until cancelled when ms is 0.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a sleepArgs) (*mcp.CallToolResult, any, error) {
		sl.enter()
		defer sl.leave()
		var done <-chan time.Time
		if a.Ms > 0 {
			done = time.After(time.Duration(a.Ms) * time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-done:
			return text("slept"), nil, nil
		}
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        StatsTool,
		Description: "Reports how many sleep calls are running and the most that ever ran at once.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, Stats, error) {
		return nil, sl.stats(), nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        CrashTool,
		Description: "Exits the server process at once with the given status, without answering.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes},
	}, func(_ context.Context, _ *mcp.CallToolRequest, a crashArgs) (*mcp.CallToolResult, any, error) {
		fmt.Fprintf(os.Stderr, "mcptest: crashing with status %d\n", a.Code)
		os.Exit(a.Code)
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        WipeTool,
		Description: "Pretends to delete everything; declares destructiveHint.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes},
	}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "wipe refused"}}}, nil, nil
	})
	for _, name := range []string{OddTool, LongTool} {
		mcp.AddTool(s, &mcp.Tool{
			Name:        name,
			Description: "Returns its own raw name, so tests can check routing.",
		}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return text("called " + strings.TrimSpace(req.Params.Name)), nil, nil
		})
	}
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
