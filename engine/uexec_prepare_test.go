package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// procEnv is an Env whose session knows process 1000 (a tty), 1001
// (pipes), 1002 (lost in a crash) and 1003 (evicted).
func procEnv() *Env {
	book := newProcBook()
	for _, p := range []struct {
		id  int
		tty bool
	}{{1000, true}, {1001, false}, {1002, true}, {1003, true}} {
		book.started(events.ExecStarted{CallID: "start", Argv: []string{"bash", "-lc", "x"}, Cwd: "/w",
			Sandbox: events.SandboxPlan{Mode: "read-only"}, Process: &events.ProcessCall{ID: p.id, Tty: p.tty}})
	}
	book.byID[1002].Status = procLost
	book.byID[1003].Status = procEvicted
	return &Env{Cwd: "/w", Process: book.lookup}
}

func TestWriteStdinRefusesWhatItCannotWriteSafely(t *testing.T) {
	env := procEnv()
	for _, tc := range []struct {
		name, payload, want string
	}{
		{"unknown session id", `{"session_id":99999}`, "write_stdin failed: Unknown process id 99999"},
		{"stale id of a lost process", `{"session_id":1002}`, "was lost"},
		{"evicted process", `{"session_id":1003}`, "ended to make room"},
		{"chars with NUL", `{"session_id":1000,"chars":"a\u0000b"}`, "NUL byte"},
		{"invalid UTF-8", "{\"session_id\":1000,\"chars\":\"\xff\xfe\"}", "not valid UTF-8"},
		{"unpaired surrogate", `{"session_id":1000,"chars":"\ud800"}`, "unpaired UTF-16 surrogate"},
		{"chars to a process without a tty", `{"session_id":1001,"chars":"x"}`, "stdin is closed for this session"},
		{"negative max_output_tokens", `{"session_id":1000,"max_output_tokens":-1}`, "max_output_tokens -1"},
		{"negative yield", `{"session_id":1000,"yield_time_ms":-5}`, "yield_time_ms -5"},
		{"fractional session id", `{"session_id":1000.5}`, "positive whole number"},
		{"missing session id", `{"chars":"x"}`, "session_id is missing"},
		{"unknown field", `{"session_id":1000,"signal":"KILL"}`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := WriteStdinTool{}.Prepare(Call{ID: "w", Name: WriteStdinName, Kind: model.ToolFunction, Payload: tc.payload}, env)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestWriteStdinBoundsWaitsAndBudgets(t *testing.T) {
	env := procEnv()
	for _, tc := range []struct {
		name, payload string
		yield         int64
		budget        int
	}{
		{"poll defaults to 5 s", `{"session_id":1000}`, 5_000, DefaultMaxOutputTokens},
		{"write defaults to 250 ms", `{"session_id":1000,"chars":"x"}`, 250, DefaultMaxOutputTokens},
		{"huge poll wait is capped at 300 s", `{"session_id":1000,"yield_time_ms":1e300}`, 300_000, DefaultMaxOutputTokens},
		{"huge write wait is capped at 30 s", `{"session_id":1000,"chars":"x","yield_time_ms":9e18}`, 30_000, DefaultMaxOutputTokens},
		{"tiny poll wait is raised to 5 s", `{"session_id":1000,"yield_time_ms":0}`, 5_000, DefaultMaxOutputTokens},
		{"huge budget is capped", `{"session_id":1000,"max_output_tokens":1e12}`, 5_000, MaxOutputTokensCap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := WriteStdinTool{}.Prepare(Call{ID: "w", Name: WriteStdinName, Kind: model.ToolFunction, Payload: tc.payload}, env)
			if err != nil {
				t.Fatal(err)
			}
			pc := p.Start.Process
			if pc.YieldMs != tc.yield || pc.MaxOutputTokens != tc.budget || pc.StartedBy != "start" || p.Plan == nil || p.Plan.Mode != "read-only" {
				t.Fatalf("process call %+v, plan %+v", pc, p.Plan)
			}
		})
	}
}

func TestExecCommandRefusesBadArguments(t *testing.T) {
	for _, tc := range []struct{ name, payload, want string }{
		{"empty cmd", `{"cmd":"  "}`, "cmd is empty"},
		{"NUL in cmd", `{"cmd":"ls\u0000"}`, "NUL byte"},
		{"unknown shell", `{"cmd":"ls","shell":"/usr/bin/python3"}`, "bash, sh or zsh"},
		{"negative max_output_tokens", `{"cmd":"ls","max_output_tokens":-3}`, "max_output_tokens -3"},
		{"workdir outside", `{"cmd":"ls","workdir":"/etc"}`, "outside the workspace"},
		{"bad sandbox_permissions", `{"cmd":"ls","sandbox_permissions":"root"}`, "sandbox_permissions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ExecCommandTool{}.Prepare(Call{ID: "e", Name: ExecCommandName, Kind: model.ToolFunction, Payload: tc.payload}, &Env{Cwd: "/w"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A model that starts 1,000 processes keeps at most MaxLiveProcesses
// running: each start past the limit ends the oldest still running.
func TestAThousandStartsKeepTheLiveLimit(t *testing.T) {
	b := newProcBook()
	evicted := 0
	for i := 0; i < 1000; i++ {
		id, ev := b.assign()
		if id != firstProcessID+i {
			t.Fatalf("start %d got session id %d", i, id)
		}
		evicted += len(ev)
		b.started(events.ExecStarted{CallID: "c", Process: &events.ProcessCall{ID: id, Evicts: ev}})
		live := 0
		for _, p := range b.byID {
			if p.Status == procRunning {
				live++
			}
		}
		if live > MaxLiveProcesses {
			t.Fatalf("after start %d: %d live", i, live)
		}
	}
	if evicted != 1000-MaxLiveProcesses {
		t.Fatalf("evicted %d, want %d", evicted, 1000-MaxLiveProcesses)
	}
	if p, _ := b.lookup(firstProcessID); p.Status != procEvicted {
		t.Fatalf("the oldest is %v", p.Status)
	}
}

func TestTheModelsPrefixRuleIsOfferedOnlyWhenItIsNarrowAndReal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix []string
		want   string
	}{
		{"a prefix of a command in the script", []string{"git", "pull"}, "[git pull]"},
		{"over-broad", []string{"bash", "-lc"}, "[]"},
		{"not in the script", []string{"rm", "-rf"}, "[]"},
		{"longer than the command", []string{"git", "pull", "origin", "main", "--force"}, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := modelPrefixRule(tc.prefix, []string{"bash", "-lc", "cd sub && git pull origin main"})
			if s := fmt.Sprint(got); s != tc.want && !(tc.want == "[]" && got == nil) {
				t.Fatalf("got %v, want %s", got, tc.want)
			}
		})
	}
}

// shapeProcess writes Codex 0.171's texts: the outputs recorded from the
// real CLI (testdata/codex171) come out byte for byte from the same
// chunk id, wall time, session id, count and output.
func TestUnifiedExecTextsAreCodex171s(t *testing.T) {
	b, err := os.ReadFile("testdata/codex171/unified_exec_outputs.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Running string `json:"exec_command_running"`
		Exited  string `json:"write_stdin_exited"`
		Unknown string `json:"write_stdin_unknown"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	var chunk string
	var wall float64
	var id, tokens int
	var out string
	if _, err := fmt.Sscanf(rec.Running, "Chunk ID: %s\nWall time: %f seconds\nProcess running with session ID %d\nOriginal token count: %d\nOutput:\n%s", &chunk, &wall, &id, &tokens, &out); err != nil {
		t.Fatalf("recorded text %q: %v", rec.Running, err)
	}
	got, ok := shapeProcess(events.ExecOutcome{Output: out + "\n", DurationNs: int64(wall*1e9 + 0.5),
		Process: &events.ProcessPoll{ID: id, Running: true, ChunkID: chunk, OriginalTokens: tokens}})
	if got != rec.Running || !ok {
		t.Errorf("running:\n got %q\nwant %q", got, rec.Running)
	}
	var code int
	if _, err := fmt.Sscanf(rec.Exited, "Chunk ID: %s\nWall time: %f seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s", &chunk, &wall, &code, &tokens, &out); err != nil {
		t.Fatalf("recorded text %q: %v", rec.Exited, err)
	}
	got, _ = shapeProcess(events.ExecOutcome{Output: out + "\n", ExitCode: code, DurationNs: int64(wall*1e9 + 0.5),
		Process: &events.ProcessPoll{ID: id, ChunkID: chunk, OriginalTokens: tokens}})
	if got != rec.Exited {
		t.Errorf("exited:\n got %q\nwant %q", got, rec.Exited)
	}
	if _, err := (WriteStdinTool{}).Prepare(Call{ID: "w", Kind: model.ToolFunction, Payload: fmt.Sprintf(`{"session_id":%d}`, id)}, procEnv()); err == nil || err.Error() != rec.Unknown {
		t.Errorf("unknown id: got %v, want %q", err, rec.Unknown)
	}
}
