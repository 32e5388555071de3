package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/docket-engine/docket/events"
)

// egressConfig has two profiles: net allows localhost and denies
// denied.test; ask has the network on and no rule, so every host is a
// question. The comment is there to be kept by an "always" answer.
const egressConfig = `# my settings: keep this comment
[permissions.net.filesystem]
":root" = "read"
":project_roots" = { "." = "write" }

[permissions.net.network]
enabled = true

[permissions.net.network.domains]
"localhost" = "allow"
"denied.test" = "deny"

[permissions.ask.filesystem]
":root" = "read"

[permissions.ask.network]
enabled = true
`

// egressRun is one docket exec through the built binary.
type egressRun struct {
	code     int
	out      string
	threadID string
}

// egressSession runs docket exec with a scripted model whose calls are
// the given shell commands (call ids c1, c2, ...), under profile.
func egressSession(t *testing.T, bin, home, work, profile string, extra []string, commands ...[]string) egressRun {
	t.Helper()
	return scriptedExec(t, bin, home, append([]string{"--json", "-C", work, "--permissions", profile}, extra...), commands...)
}

// scriptedExec runs docket exec with args and a scripted model whose
// calls are the given shell commands (call ids c1, c2, ...).
func scriptedExec(t *testing.T, bin, home string, args []string, commands ...[]string) egressRun {
	t.Helper()
	var b strings.Builder
	for i, argv := range commands {
		args, _ := json.Marshal(map[string]any{"command": argv, "workdir": "."})
		fmt.Fprintf(&b, `{"output":[{"type":"function_call","call_id":"c%d","name":"shell","arguments":%s}]}`+"\n", i+1, args)
	}
	b.WriteString(`{"output":[{"type":"message","content":"Done."}]}` + "\n")
	script := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(script, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"exec", "--skip-git-repo-check", "--model-script", script}, args...)
	cmd := exec.Command(bin, append(args, "go")...)
	cmd.Env = []string{"DOCKET_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
	out, _ := cmd.CombinedOutput()
	r := egressRun{code: cmd.ProcessState.ExitCode(), out: string(out)}
	if m := regexp.MustCompile(`"thread_id":"([^"]+)"`).FindStringSubmatch(r.out); m != nil {
		r.threadID = m[1]
	}
	return r
}

// outputOf is the aggregated output the JSONL stream reports for call cN:
// the Nth command that completed (the calls run one at a time, in order).
func outputOf(t *testing.T, out, callID string) string {
	t.Helper()
	n := 0
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type   string `json:"type"`
				Output string `json:"aggregated_output"`
			} `json:"item"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "item.completed" || ev.Item.Type != "command_execution" {
			continue
		}
		if n++; fmt.Sprintf("c%d", n) == callID {
			return ev.Item.Output
		}
	}
	t.Fatalf("no completed item for %s in\n%s", callID, out)
	return ""
}

// networkRecords reads a session's network records from its journal.
func networkRecords(t *testing.T, home, id string) ([]events.NetworkDecision, []events.NetworkConnection) {
	t.Helper()
	var ds []events.NetworkDecision
	var cs []events.NetworkConnection
	for _, b := range journalBodies(t, home, id) {
		switch v := b.(type) {
		case *events.NetworkDecision:
			ds = append(ds, *v)
		case *events.NetworkConnection:
			cs = append(cs, *v)
		}
	}
	return ds, cs
}

// TestASessionsCommandsGoOutOnlyThroughItsEgressProxy runs docket exec
// under a profile with the network on: curl reaches an allowed loopback
// server through the session's proxy, is refused a denied name, and gets
// nowhere directly or with NO_PROXY=* (both shown to work without the
// profile first); a host no rule covers is denied unasked under never.
// Every connection is in the journal with its rule and call.
func TestASessionsCommandsGoOutOnlyThroughItsEgressProxy(t *testing.T) {
	bin := cliBinary(t)
	home, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(egressConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	port, _ := loopbackServer(t)
	direct := []string{"curl", "-sS", "--noproxy", "*", "--max-time", "5", "http://127.0.0.1:" + port + "/"}
	noProxy := []string{"env", "NO_PROXY=*", "no_proxy=*", "curl", "-sS", "--max-time", "5", "http://localhost:" + port + "/"}

	// Without the profile (no sandbox) the direct request and NO_PROXY=*
	// both reach the server.
	free := egressSession(t, bin, home, work, ":danger-full-access", []string{"-a", "never"}, direct, noProxy)
	if free.code != 0 || !strings.Contains(outputOf(t, free.out, "c1"), "served 127.0.0.1:"+port) || !strings.Contains(outputOf(t, free.out, "c2"), "served localhost:"+port) {
		t.Fatalf("without the profile: exit %d %s", free.code, free.out)
	}

	r := egressSession(t, bin, home, work, "net", []string{"-a", "never"},
		[]string{"curl", "-sS", "--max-time", "10", "http://localhost:" + port + "/"},
		[]string{"curl", "-sS", "-f", "--max-time", "10", "http://denied.test:" + port + "/"},
		direct, noProxy,
		[]string{"curl", "-sS", "-f", "--max-time", "10", "http://unknown.test:" + port + "/"})
	if r.code != 0 || r.threadID == "" {
		t.Fatalf("docket exec --permissions net: exit %d %s", r.code, r.out)
	}
	cases := []struct {
		call, want, not string
	}{
		{"c1", "served localhost:" + port, ""},
		{"c2", "403", "served"},
		{"c3", "Failed to connect", "served"},
		{"c4", "", "served"},
		{"c5", "403", "served"},
	}
	for _, tc := range cases {
		got := outputOf(t, r.out, tc.call)
		if !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) {
			t.Errorf("%s: output %q, want %q and not %q", tc.call, got, tc.want, tc.not)
		}
	}
	ds, cs := networkRecords(t, home, r.threadID)
	byCall := map[string]events.NetworkConnection{}
	for _, c := range cs {
		byCall[c.CallID] = c
	}
	if c := byCall["c1"]; !c.Allowed || c.Rule != "permissions.net.network.domains.localhost" || c.Host != "localhost" {
		t.Errorf("c1's connection: %+v", c)
	}
	if c := byCall["c2"]; c.Allowed || !strings.Contains(c.Rule, "denied.test") {
		t.Errorf("c2's connection: %+v", c)
	}
	if _, ok := byCall["c3"]; ok {
		t.Errorf("the direct request reached the proxy: %+v", byCall["c3"])
	}
	if _, ok := byCall["c4"]; ok {
		t.Errorf("NO_PROXY=* reached the proxy: %+v", byCall["c4"])
	}
	if c := byCall["c5"]; c.Allowed || c.Host != "unknown.test" {
		t.Errorf("c5's connection: %+v", c)
	}
	if len(ds) != 1 || ds[0].CallID != "c5" || ds[0].Answer != events.NetworkDeny || ds[0].Source != events.SourceNoAnswer || ds[0].Profile != "net" {
		t.Errorf("under never the unknown host is denied unasked, and that is journaled: %+v", ds)
	}
}

// TestANetworkQuestionIsAnsweredSavedAndReplayedWithoutTheNetwork asks
// about a host no rule covers: a saved --decisions answer ("p", always)
// allows it, the rule lands in the profile's domains with the rest of the
// config file kept, the next session reaches the server by that rule, and
// verify replay of the asking session passes with the server gone and
// nobody to ask.
func TestANetworkQuestionIsAnsweredSavedAndReplayedWithoutTheNetwork(t *testing.T) {
	bin := cliBinary(t)
	home, work := t.TempDir(), t.TempDir()
	cfgPath := filepath.Join(home, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(egressConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	port, stopServer := loopbackServer(t)
	get := []string{"curl", "-sS", "--max-time", "10", "http://localhost:" + port + "/"}

	asked := egressSession(t, bin, home, work, "ask", []string{"-a", "on-request", "--decisions", "c1=approved_execpolicy_amendment"}, get)
	if asked.code != 0 || asked.threadID == "" {
		t.Fatalf("the asking session: exit %d %s", asked.code, asked.out)
	}
	ds, cs := networkRecords(t, home, asked.threadID)
	if len(ds) != 1 || ds[0].CallID != "c1" || ds[0].Host != "localhost" || ds[0].Answer != events.NetworkAllowAlways ||
		ds[0].Source != events.SourceFlag || ds[0].RuleWritten != "permissions.ask.network.domains.localhost" {
		t.Fatalf("the answer about localhost: %+v", ds)
	}
	// A person's answer is not an exact rule: the name resolving to
	// loopback is refused this time, and the record says why.
	if len(cs) != 1 || cs[0].Allowed || !strings.Contains(cs[0].Rule, "loopback") {
		t.Fatalf("the connection after the answer: %+v", cs)
	}
	text, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(text), egressConfig) || !strings.Contains(string(text), "[permissions.ask.network.domains]\n\"localhost\" = \"allow\"") {
		t.Fatalf("the config after always:\n%s", text)
	}

	// The saved rule is exact: the next session reaches the server by it.
	next := egressSession(t, bin, home, work, "ask", []string{"-a", "never"}, get)
	if got := outputOf(t, next.out, "c1"); next.code != 0 || !strings.Contains(got, "served localhost:"+port) {
		t.Fatalf("the session after always: exit %d %q %s", next.code, got, next.out)
	}
	if _, cs := networkRecords(t, home, next.threadID); len(cs) != 1 || !cs[0].Allowed || cs[0].Rule != "permissions.ask.network.domains.localhost" {
		t.Fatalf("the connection by the saved rule: %+v", cs)
	}

	// Verify replay with the server gone and no terminal: the recorded
	// answers and connections are fed back.
	stopServer()
	for _, id := range []string{asked.threadID, next.threadID} {
		cmd := exec.Command(bin, "replay", id)
		cmd.Env = []string{"DOCKET_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "replay ok") {
			t.Fatalf("docket replay %s: %v\n%s", id, err, out)
		}
	}
}

// TestANetworkQuestionIsAskedOnTheTerminal runs docket exec on a
// pseudo-terminal: the host no rule covers is put to the person with the
// call, its command and the host, and the typed answer is journaled as
// theirs.
func TestANetworkQuestionIsAskedOnTheTerminal(t *testing.T) {
	bin := cliBinary(t)
	home, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(egressConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want events.NetworkAnswer
	}{{"s", events.NetworkAllowSession}, {"n", events.NetworkDeny}} {
		t.Run(tc.key, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "script.jsonl")
			calls := `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["curl","-sS","--max-time","10","http://nowhere.test:8080/x"],"workdir":"."}}]}
{"output":[{"type":"message","content":"Finished."}]}
`
			if err := os.WriteFile(script, []byte(calls), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "-C", work, "-a", "on-request", "--permissions", "ask", "--model-script", script, "fetch")
			cmd.Env = []string{"DOCKET_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin", "NO_COLOR=1"}
			ptmx, err := pty.Start(cmd)
			if err != nil {
				t.Fatalf("start under a pty: %v", err)
			}
			defer ptmx.Close()
			scr := newCLIScreen(ptmx)
			shown := scr.waitFor(t, "answer (y/s/p/n)")
			for _, s := range []string{"network through the egress proxy (profile ask's domains)", "Approval requested for call c1 (network, initial)", "command: curl -sS --max-time 10 http://nowhere.test:8080/x",
				"network: nowhere.test:8080 (http GET), not covered by permission profile ask", "[p] always allow nowhere.test"} {
				if !strings.Contains(shown, s) {
					t.Errorf("prompt lacks %q:\n%s", s, shown)
				}
			}
			if _, err := ptmx.Write([]byte(tc.key + "\n")); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("docket exec: %v\n%s", err, scr.all())
			}
			out := scr.all()
			m := regexp.MustCompile(`session ([0-9a-f-]{36})`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no session id shown:\n%s", out)
			}
			ds, cs := networkRecords(t, home, m[1])
			if len(ds) != 1 || ds[0].Answer != tc.want || ds[0].Source != events.SourceUser || ds[0].CallID != "c1" {
				t.Fatalf("the journaled answer: %+v", ds)
			}
			if len(cs) != 1 || cs[0].Allowed {
				t.Fatalf("the connection (nowhere.test resolves nowhere): %+v", cs)
			}
		})
	}
}

// TestALongLivedProcessGoesOutThroughTheProxyAndReplays: exec_command's
// process is served by the bridge for as long as it lives, past its
// call's outcome; its connection is journaled under that call, and verify
// replay passes with the server gone.
func TestALongLivedProcessGoesOutThroughTheProxyAndReplays(t *testing.T) {
	bin := cliBinary(t)
	home, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(egressConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	port, stopServer := loopbackServer(t)
	// The process sleeps past its call's yield, then fetches: the
	// connection comes after c1's outcome, and c2 (write_stdin) reads it.
	lines := fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"exec_command","arguments":{"cmd":"sleep 1; curl -sS --max-time 10 http://localhost:%s/","yield_time_ms":250}}]}
{"output":[{"type":"function_call","call_id":"c2","name":"write_stdin","arguments":{"session_id":1000,"chars":"","yield_time_ms":10000}}]}
{"output":[{"type":"message","content":"Done."}]}
`, port)
	script := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(script, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--json", "-C", work, "-a", "never", "--permissions", "net", "--model-script", script, "go")
	cmd.Env = []string{"DOCKET_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "served localhost:"+port) {
		t.Fatalf("docket exec: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`"thread_id":"([^"]+)"`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no thread id:\n%s", out)
	}
	_, cs := networkRecords(t, home, m[1])
	if len(cs) != 1 || !cs[0].Allowed || cs[0].CallID != "c1" || cs[0].Rule != "permissions.net.network.domains.localhost" {
		t.Fatalf("the process's connection: %+v", cs)
	}
	stopServer()
	rp := exec.Command(bin, "replay", m[1])
	rp.Env = cmd.Env
	if out, err := rp.CombinedOutput(); err != nil || !strings.Contains(string(out), "replay ok") {
		t.Fatalf("docket replay: %v\n%s", err, out)
	}
}
