package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/mcp/internal/mcptest"
)

// BenchmarkStartAndClose measures one server's spawn, initialize,
// tools/list and shutdown.
func BenchmarkStartAndClose(b *testing.B) {
	servers := map[string]ServerConfig{"t": testServerConfig(mcptest.ModeServe)}
	for b.Loop() {
		m, err := NewManager(servers, Options{TerminateGrace: 2 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		_ = m.Close()
	}
}

// BenchmarkCallEcho measures one tool call's round trip over stdio.
func BenchmarkCallEcho(b *testing.B) {
	m, err := NewManager(map[string]ServerConfig{"t": testServerConfig(mcptest.ModeServe)}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	if err := m.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"hello"}`)
	for b.Loop() {
		if _, err := m.Call(context.Background(), "t", mcptest.EchoTool, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQualify measures naming a few hundred tools.
func BenchmarkQualify(b *testing.B) {
	var refs []ToolRef
	for i := range 300 {
		refs = append(refs, ToolRef{Server: "server-" + string(rune('a'+i%7)), Tool: "tool.name-" + string(rune('a'+i%26)) + string(rune('A'+i/26))})
	}
	for b.Loop() {
		if _, err := Qualify(refs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartAndCloseEverything measures the npm everything server's
// spawn, initialize, tools/list and shutdown.
func BenchmarkStartAndCloseEverything(b *testing.B) {
	servers := map[string]ServerConfig{"ev": everythingConfig(b)}
	for b.Loop() {
		m, err := NewManager(servers, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		_ = m.Close()
	}
}
