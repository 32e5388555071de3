package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestChatPermissionsToANetworkProfileFollowsItsRules drives /permissions
// on a pty: under :workspace a command reaches nothing; switched to a
// profile whose network goes through the egress proxy, the next command
// reaches the allowed loopback server through the session's proxy and is
// refused the host the profile denies (the refusal shown in the
// transcript); switched back to :workspace, the network is off again. The
// journal holds the proxy's records of the middle call only, by the
// switched profile's rules, and verify-replays.
func TestChatPermissionsToANetworkProfileFollowsItsRules(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	for _, d := range []string{ws, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(egressConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	port, _ := loopbackServer(t)
	get := "curl -sS --max-time 10 http://localhost:" + port + "/; curl -sS -f --max-time 10 http://denied.test:" + port + "/; true"
	call := func(id string) string {
		return `{"output":[{"type":"function_call","call_id":"` + id + `","name":"shell","arguments":{"command":["sh","-c",` + fmt.Sprintf("%q", get) + `]}}]}`
	}
	script := strings.Join([]string{
		call("p1"), `{"output":[{"type":"message","content":"First done."}]}`,
		call("p2"), `{"output":[{"type":"message","content":"Second done."}]}`,
		call("p3"), `{"output":[{"type":"message","content":"Third done."}]}`,
	}, "\n") + "\n"
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startChatEnv(t, bin, nil, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "--permissions", ":workspace", "--model-script", sp)
	r.scr.waitFor(t, 0, "approvals never")
	served := "served localhost:" + port

	at := r.scr.mark()
	r.typeLine("first")
	shown := r.idleAfter(at, "First done.")
	if strings.Contains(shown[at:], served) {
		t.Fatalf("under :workspace the command reached the server:\n%s", shown[at:])
	}

	at = r.scr.mark()
	r.typeLine("/permissions net")
	r.scr.waitFor(t, at, "permission profile is now net")
	r.scr.waitFor(t, at, "network through the egress proxy")
	at = r.scr.mark()
	r.typeLine("second")
	shown = r.idleAfter(at, "Second done.")
	if !strings.Contains(shown[at:], served) {
		t.Errorf("under the net profile the command did not reach the allowed server:\n%s", shown[at:])
	}
	if !strings.Contains(shown[at:], "network: refused denied.test:"+port+" for call p2") {
		t.Errorf("the transcript does not show the refusal of denied.test:\n%s", shown[at:])
	}

	at = r.scr.mark()
	r.typeLine("/permissions :workspace")
	r.scr.waitFor(t, at, "permission profile is now :workspace")
	at = r.scr.mark()
	r.typeLine("third")
	shown = r.idleAfter(at, "Third done.")
	if strings.Contains(shown[at:], served) {
		t.Errorf("switched away from the net profile, the command still reached the server:\n%s", shown[at:])
	}
	r.typeLine("/quit")
	code, out := r.wait()
	if code != 0 {
		t.Fatalf("chat exited %d:\n%s", code, out)
	}
	m := resumeHintRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no resume hint at quit:\n%s", out)
	}
	id := m[1]

	_, cs := networkRecords(t, home, id)
	byCall := map[string][]string{}
	for _, c := range cs {
		byCall[c.CallID] = append(byCall[c.CallID], fmt.Sprintf("%s %v %s", c.Host, c.Allowed, c.Rule))
	}
	want := map[string][]string{"p2": {
		"localhost true permissions.net.network.domains.localhost",
		`denied.test false permissions.net.network.domains."denied.test"`,
	}}
	if fmt.Sprint(byCall) != fmt.Sprint(want) {
		t.Errorf("the proxy's connections by call\n got %v\nwant %v", byCall, want)
	}
	rep := exec.Command(bin, "replay", "--home", home, id)
	if out, err := rep.CombinedOutput(); err != nil || !strings.Contains(string(out), "replay ok") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
}
