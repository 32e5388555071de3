package mcp

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test -update)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func sampleStatuses() []ServerStatus {
	return []ServerStatus{
		{Name: "broken", State: StateFailed, Command: []string{"nope"}, Tools: []string{},
			Error: `initialize: exec: "nope": executable file not found in $PATH`},
		{Name: "everything", State: StateRunning, Command: []string{"npx", "-y", "@modelcontextprotocol/server-everything"},
			Tools: []string{"mcp__everything__echo", "mcp__everything__get_sum"}},
		{Name: "fs", State: StateRunning, Command: []string{"mcp-server-filesystem", "/"}, Tools: []string{"mcp__fs__write_file"},
			Layers: []string{"landlock:v7", "seccomp", "caps", "mountns", "pidns", "netns"}},
		{Name: "off", State: StateDisabled, Command: []string{"srv"}, Tools: []string{}},
	}
}

func TestRenderList(t *testing.T) {
	tests := []struct {
		name     string
		statuses []ServerStatus
		json     bool
	}{
		{"list.txt", sampleStatuses(), false},
		{"list.json", sampleStatuses(), true},
		{"empty.txt", nil, false},
		{"empty.json", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderList(&b, tt.statuses, tt.json); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}
