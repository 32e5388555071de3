package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

func execCall(id, args string) string {
	return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"exec_command","arguments":%s}]}`, id, args)
}

func writeCall(id, args string) string {
	return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"write_stdin","arguments":%s}]}`, id, args)
}

const doneMsg = `{"output":[{"type":"message","content":"done"}]}`

// toolOutputs reads each call's tool_output from the newest session.
func journalToolOutputs(t *testing.T, home string) map[string]string {
	t.Helper()
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	readAllFrom(t, sf.Path, func(b any) {
		if o, ok := b.(*events.ToolOutput); ok {
			out[o.CallID] = o.Output
		}
	})
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The scenarios a Codex model runs with unified exec, through the built
// binary, real processes and a real pty; each session then verify-replays.
func TestUnifiedExecScenariosThroughTheBinary(t *testing.T) {
	port := freePort(t)
	cases := []struct {
		name, sandbox string
		lines         []string
		want          map[string][]string
	}{
		{
			name: "interactive python via tty", sandbox: "read-only",
			lines: []string{
				execCall("c1", `{"cmd":"/usr/bin/python3 -q -i","tty":true,"yield_time_ms":3000}`),
				writeCall("c2", `{"session_id":1000,"chars":"print(6*7)\n","yield_time_ms":3000}`),
				writeCall("c3", `{"session_id":1000,"chars":"exit()\n","yield_time_ms":10000}`),
			},
			want: map[string][]string{
				"c1": {"Process running with session ID 1000", ">>> "},
				"c2": {"print(6*7)\r\n42\r\n"},
				"c3": {"Process exited with code 0"},
			},
		},
		{
			name: "a server started then queried", sandbox: "danger-full-access",
			lines: []string{
				execCall("c1", fmt.Sprintf(`{"cmd":"exec /usr/bin/python3 -m http.server %d --bind 127.0.0.1","yield_time_ms":1500}`, port)),
				execCall("c2", fmt.Sprintf(`{"cmd":"for i in $(seq 50); do /usr/bin/python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://127.0.0.1:%d/\").status)' 2>/dev/null && break; sleep 0.2; done","yield_time_ms":20000}`, port)),
				writeCall("c3", `{"session_id":1000,"yield_time_ms":5000}`),
			},
			want: map[string][]string{
				"c1": {"Process running with session ID 1000"},
				"c2": {"Process exited with code 0", "200\n"},
				"c3": {"Process running with session ID 1000", `"GET / HTTP/1.1" 200`},
			},
		},
		{
			name: "a long build polled with write_stdin", sandbox: "workspace-write",
			lines: []string{
				execCall("c1", `{"cmd":"for i in 1 2 3; do echo step $i; sleep 0.5; done; echo built > out.txt; echo built","yield_time_ms":250}`),
				writeCall("c2", `{"session_id":1000,"yield_time_ms":30000}`),
			},
			want: map[string][]string{
				"c1": {"Process running with session ID 1000"},
				"c2": {"Process exited with code 0", "step 3\nbuilt\n"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			script := writeScript(t, append(tc.lines, doneMsg)...)
			r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", tc.sandbox, "--model-script", script, "go")
			if r.code != 0 {
				t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
			}
			out := journalToolOutputs(t, home)
			for call, wants := range tc.want {
				for _, w := range wants {
					if !strings.Contains(out[call], w) {
						t.Errorf("%s: output lacks %q:\n%s", call, w, out[call])
					}
				}
			}
			if r := docket(t, nil, "replay", "--home", home, "last"); r.code != 0 {
				t.Fatalf("replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			a := docket(t, nil, "audit", "--home", home, "last")
			if a.code != 0 || !strings.Contains(a.stdout, "long-lived processes\n  session 1000: started by call c1") ||
				!strings.Contains(a.stdout, "ended: ") {
				t.Fatalf("audit: exit %d\n%s%s", a.code, a.stdout, a.stderr)
			}
			if !strings.Contains(a.stdout, "call c2 (seq ") {
				t.Errorf("the audit does not show c2's part in a process's story:\n%s", a.stdout)
			}
		})
	}
}

// kill -9 while a long-lived process runs: the process dies with docket;
// resumed, the model is told its session id was lost and nothing runs
// again; the journal verify-replays across the crash.
func TestKilledDocketLosesItsProcessesAndResumeSaysSo(t *testing.T) {
	for _, sb := range []string{"workspace-write", "danger-full-access"} {
		t.Run(sb, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			token := randomToken(t)
			script := writeScript(t,
				execCall("c1", fmt.Sprintf(`{"cmd":": %s; echo up > started; echo run >> runs.log; while :; do sleep 0.05; done","yield_time_ms":250}`, token)),
				writeCall("c2", `{"session_id":1000,"yield_time_ms":300000}`),
				writeCall("c3", `{"session_id":1000,"chars":"","yield_time_ms":250}`),
				doneMsg)
			cmd := exec.Command(docketBin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", sb, "--model-script", script, "go")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !waitFor(func() bool { return len(processesWith(t, token)) > 0 && fileExists(ws+"/started") }) {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("the process or the poll never started; docket said:\n%s", stderr.String())
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait() // killed: the error says so
			if !waitFor(func() bool { return len(processesWith(t, token)) == 0 }) {
				t.Fatalf("the long-lived process outlived docket: %v", processesWith(t, token))
			}
			r := docket(t, nil, "resume", "--last", "--all", "--home", home, "--model-script", script)
			if r.code != 0 {
				t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
			}
			out := journalToolOutputs(t, home)
			// Killed during c2's poll, c2 is "outcome unknown"; killed just
			// before it began, the resumed c2 learns of the loss itself.
			if !strings.Contains(out["c2"], "outcome unknown") && !strings.Contains(out["c2"], "was lost") {
				t.Errorf("c2 (the poll cut off by the kill): %q", out["c2"])
			}
			if !strings.Contains(out["c3"], "process 1000 (started by call c1) was lost") || !strings.Contains(out["c3"], "not run again") {
				t.Errorf("c3 (the model asks after the lost process): %q", out["c3"])
			}
			if b, _ := readFileString(ws + "/runs.log"); b != "run\n" {
				t.Errorf("runs.log %q: the command ran again", b)
			}
			if r := docket(t, nil, "replay", "--home", home, "last"); r.code != 0 {
				t.Fatalf("replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if a := docket(t, nil, "audit", "--home", home, "last"); !strings.Contains(a.stdout, "ended: lost: the docket that ran it stopped") {
				t.Fatalf("audit: exit %d\n%s%s", a.code, a.stdout, a.stderr)
			}
		})
	}
}

func readFileString(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}

// Ctrl-C (SIGINT to docket) while the model polls a long-lived process:
// the process dies with the session, and the poll is recorded as
// cancelled, not run again.
func TestCtrlCEndsTheSessionsProcesses(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	token := randomToken(t)
	script := writeScript(t,
		execCall("c1", fmt.Sprintf(`{"cmd":": %s; echo up > started; while :; do sleep 0.05; done","yield_time_ms":250}`, token)),
		writeCall("c2", `{"session_id":1000,"yield_time_ms":300000}`),
		doneMsg)
	cmd := exec.Command(docketBin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "workspace-write", "--model-script", script, "go")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return len(processesWith(t, token)) > 0 && fileExists(ws+"/started") }) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the process never started; docket said:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // interrupted: a non-zero exit
	if p := processesWith(t, token); len(p) != 0 {
		t.Fatalf("docket exited after Ctrl-C but its process runs on: %v", p)
	}
	if r := docket(t, nil, "replay", "--home", home, "last"); r.code != 0 {
		t.Fatalf("replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// audit --unsandboxed answers "why" for a write to an unsandboxed process
// with the process it went to and the call that started it.
func TestAuditSaysWhyAWriteRanWithoutASandbox(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	script := writeScript(t,
		execCall("c1", `{"cmd":"cat","tty":true,"yield_time_ms":250}`),
		writeCall("c2", `{"session_id":1000,"chars":"\u0004","yield_time_ms":5000}`),
		doneMsg)
	if r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "danger-full-access", "--model-script", script, "go"); r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	a := docket(t, nil, "audit", "--home", home, "last", "--unsandboxed")
	if a.code != 0 || !strings.Contains(a.stdout, "a write to process 1000, which call c1 started without a sandbox") {
		t.Fatalf("audit: exit %d\n%s%s", a.code, a.stdout, a.stderr)
	}
}

// exec --json shows a process polled to its end as one command_execution
// item, as Codex 0.171 streams it; the write_stdin poll has no item.
func TestExecJSONShowsALongLivedProcessAsOneItem(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	script := writeScript(t,
		execCall("c1", `{"cmd":"echo start; sleep 1; echo built","yield_time_ms":250}`),
		writeCall("c2", `{"session_id":1000,"yield_time_ms":30000}`),
		doneMsg)
	r := docket(t, nil, "exec", "--json", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "read-only", "--model-script", script, "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	type item struct {
		ID, Type, Command, Status string
		AggregatedOutput          string `json:"aggregated_output"`
		ExitCode                  *int   `json:"exit_code"`
	}
	var started, completed []item
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Type string
			Item item
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if ev.Item.Type != "command_execution" {
			continue
		}
		switch ev.Type {
		case "item.started":
			started = append(started, ev.Item)
		case "item.completed":
			completed = append(completed, ev.Item)
		}
	}
	if len(started) != 1 || len(completed) != 1 || started[0].ID != completed[0].ID {
		t.Fatalf("items started %+v, completed %+v\n%s", started, completed, r.stdout)
	}
	c := completed[0]
	if c.Command != "bash -lc 'echo start; sleep 1; echo built'" || !strings.Contains(c.AggregatedOutput, "start\n") ||
		!strings.HasSuffix(c.AggregatedOutput, "built\n") || c.ExitCode == nil || *c.ExitCode != 0 || c.Status != "completed" {
		t.Fatalf("completed item %+v", c)
	}
}
