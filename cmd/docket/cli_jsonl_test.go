package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/render/jsonlschema"
)

// cliExec runs the built binary without a terminal and returns its exit
// code, stdout and stderr.
func cliExec(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// TestExecJSONStreamsMatchTheSchema runs real sessions (real sandbox, real
// journal) with --json and validates every line, for a completed and a
// parked turn.
func TestExecJSONStreamsMatchTheSchema(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	schema, err := jsonlschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	script := `{"output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"look first"}]},{"type":"message","content":"Looking."},{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-lc","ls"],"workdir":"."}}]}
{"output":[{"type":"function_call","call_id":"c2","name":"shell","arguments":{"command":["bash","-c","echo before; touch /etc/docket-cli-test-denied"],"workdir":"."}}]}
{"output":[{"type":"custom_tool_call","call_id":"c3","name":"apply_patch","input":"*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"}]}
{"output":[{"type":"message","content":"Done."}],"usage":{"input_tokens":10,"output_tokens":2}}
`
	for _, tc := range []struct {
		name      string
		decisions string
		ext       bool
		code      int
		must      []string
	}{
		{"denied then completed", "denied", false, exitOK, []string{"turn.completed",
			"item:command_execution", "item:file_change", "item:agent_message", "item:reasoning"}},
		{"parked", "", false, exitParked, []string{"error", "turn.failed"}},
		{"denied then completed, extensions", "denied", true, exitOK, []string{"turn.completed", "call.transition", "approval.requested", "item.updated",
			"item:command_execution", "item:file_change", "item:agent_message", "item:reasoning"}},
		{"parked, extensions", "", true, exitParked, []string{"session.parked", "approval.requested", "turn.failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			sp := filepath.Join(dir, "script.jsonl")
			if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"exec", "--skip-git-repo-check", "--json", "--home", filepath.Join(dir, "home"), "-C", ws, "-a", "on-failure", "-s", "workspace-write", "--model-script", sp}
			if tc.decisions != "" {
				args = append(args, "--decisions", tc.decisions)
			}
			s := schema.Codex()
			if tc.ext {
				args = append(args, "--json-extensions")
				s = schema
			}
			code, stdout, stderr := cliExec(t, bin, append(args, "do it")...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s\nstdout: %s", code, tc.code, stderr, stdout)
			}
			counts, err := s.Validate(strings.NewReader(stdout))
			if err != nil {
				t.Fatalf("%v\nstream:\n%s", err, stdout)
			}
			if counts["thread.started"] != 1 || counts["turn.started"] != 1 {
				t.Errorf("counts = %v", counts)
			}
			for _, m := range tc.must {
				if counts[m] == 0 {
					t.Errorf("no %s in the stream:\n%s", m, stdout)
				}
			}
		})
	}
}
