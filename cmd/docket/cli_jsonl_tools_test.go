package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/render/jsonlschema"
	"github.com/docket-engine/docket/engine"
)

// jsonlItem is the part of an item event the tool-kind tests look at.
type jsonlItem struct {
	Type string `json:"type"`
	Item struct {
		ID                string                     `json:"id"`
		Type              string                     `json:"type"`
		Command           *string                    `json:"command"`
		Tool              string                     `json:"tool"`
		SenderThreadID    string                     `json:"sender_thread_id"`
		ReceiverThreadIDs []string                   `json:"receiver_thread_ids"`
		Prompt            *string                    `json:"prompt"`
		AgentsStates      map[string]json.RawMessage `json:"agents_states"`
		Arguments         json.RawMessage            `json:"arguments"`
		Error             *struct{ Message string }  `json:"error"`
		Status            string                     `json:"status"`
	} `json:"item"`
	ThreadID string `json:"thread_id"`
}

// TestExecJSONGivesEveryToolKindItsOwnItem runs a real session (real
// binary, scripted model, real subagent journal) whose calls are a
// subagent spawn, a spawn refused for widening the policy, a call of an
// unknown tool and a shell call with bad arguments. The spawn must be a
// collab_tool_call naming the parent and the child session; the refused
// calls tool_call items carrying the reason; and no command_execution
// item may have an empty command (the fallback this replaces). The
// tool_call items are Docket's, so the run asks for --json-extensions;
// Codex's stream has no item for a refused call
// (TestExecJSONDefaultStreamIsCodexs).
func TestExecJSONGivesEveryToolKindItsOwnItem(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	schema, err := jsonlschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	// One call a response, so the stream's order is fixed for the golden.
	script := `{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"write out.txt","name":"writer"}}]}
{"output":[{"type":"function_call","call_id":"p2","name":"spawn_agent","arguments":{"prompt":"x","name":"wide","sandbox_mode":"danger-full-access"}}]}
{"output":[{"type":"function_call","call_id":"u1","name":"no_such_tool","arguments":{"a":1}}]}
{"output":[{"type":"function_call","call_id":"s1","name":"shell","arguments":{"cmd":"ls"}}]}
{"output":[{"type":"message","content":"parent done"}]}
{"agent":"writer","output":[{"type":"function_call","call_id":"w1","name":"shell","arguments":{"command":["bash","-c","echo hi > out.txt"]}}]}
{"agent":"writer","output":[{"type":"message","content":"writer wrote out.txt"}]}
`
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cliExec(t, bin, "exec", "--skip-git-repo-check", "--json", "--json-extensions", "--home", filepath.Join(dir, "home"), "-C", ws,
		"-a", "never", "-s", "workspace-write", "-c", "subagents.enabled=true", "--model-script", sp, "go")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
	if _, err := schema.Validate(strings.NewReader(stdout)); err != nil {
		t.Fatalf("%v\nstream:\n%s", err, stdout)
	}
	var thread string
	completed := map[string]jsonlItem{} // by tool, for the calls checked
	started := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev jsonlItem
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		if ev.Type == "thread.started" {
			thread = ev.ThreadID
		}
		if !strings.HasPrefix(ev.Type, "item.") {
			continue
		}
		it := ev.Item
		if it.Type == "command_execution" && (it.Command == nil || *it.Command == "") {
			t.Errorf("a command_execution item without a command: %s", sc.Text())
		}
		if ev.Type == "item.started" {
			started[it.Type]++
		}
		if ev.Type == "item.completed" {
			key := it.Type + ":" + it.Tool
			if it.Type == "collab_tool_call" {
				key += ":" + it.Status
			}
			completed[key] = ev
		}
	}
	child := engine.ChildSessionID(thread, "p1")
	spawn, ok := completed["collab_tool_call:spawn_agent:completed"]
	switch {
	case !ok:
		t.Errorf("no completed collab_tool_call for the spawn:\n%s", stdout)
	case spawn.Item.SenderThreadID != thread || len(spawn.Item.ReceiverThreadIDs) != 1 || spawn.Item.ReceiverThreadIDs[0] != child:
		t.Errorf("spawn item sender %q receivers %v, want %q and [%s]", spawn.Item.SenderThreadID, spawn.Item.ReceiverThreadIDs, thread, child)
	case spawn.Item.Prompt == nil || *spawn.Item.Prompt != "write out.txt":
		t.Errorf("spawn item prompt %v", spawn.Item.Prompt)
	case !strings.Contains(string(spawn.Item.AgentsStates[child]), `"status":"completed","message":"writer wrote out.txt"`):
		t.Errorf("spawn item agents_states %s", spawn.Item.AgentsStates[child])
	}
	if started["collab_tool_call"] != 1 {
		t.Errorf("%d collab_tool_call items started, want 1 (the accepted spawn)", started["collab_tool_call"])
	}
	for key, why := range map[string]string{
		"tool_call:spawn_agent":  "a subagent may only narrow its parent's policy",
		"tool_call:no_such_tool": `unknown tool "no_such_tool"`,
		"tool_call:shell":        "arguments are not valid shell arguments",
	} {
		ev, ok := completed[key]
		if !ok {
			t.Errorf("no %s item:\n%s", key, stdout)
			continue
		}
		if ev.Item.Status != "failed" || ev.Item.Error == nil || !strings.Contains(ev.Item.Error.Message, why) || len(ev.Item.Arguments) == 0 || string(ev.Item.Arguments) == "null" {
			t.Errorf("%s: status %s error %+v arguments %s, want failed with %q and the model's arguments", key, ev.Item.Status, ev.Item.Error, ev.Item.Arguments, why)
		}
	}
	if _, ok := completed["command_execution:"]; !ok {
		t.Errorf("the subagent's own shell call is not a command_execution item:\n%s", stdout)
	}
	// The whole stream, with the session ids (new each run) named.
	stable := strings.NewReplacer(thread, "THREAD_ID", child, "CHILD_ID").Replace(stdout)
	jsonlGolden(t, "exec_tools.jsonl", []byte(stable))
}

// jsonlGolden compares got with testdata/jsonl/name; go test -update
// rewrites it.
func jsonlGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "jsonl", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got ---\n%s", name, got)
	}
}
