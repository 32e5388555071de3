package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// wideConfig is the configuration a session is resumed with in
// TestAResumedSessionKeepsItsRecordedNetworkRules: it does not name the
// net profile the session recorded, and its own default profile allows
// every host the test asks for, denied.test included.
const wideConfig = `default_permissions = "wide"

[permissions.wide.filesystem]
":root" = "read"
":project_roots" = { "." = "write" }

[permissions.wide.network]
enabled = true

[permissions.wide.network.domains]
"localhost" = "allow"
"denied.test" = "allow"
`

// TestAResumedSessionKeepsItsRecordedNetworkRules: a session under the
// net profile (switched to with /permissions in chat and then killed, or
// started under it by exec and parked on an approval) is resumed with a
// configuration that no longer names net and whose own profile allows
// denied.test. The resumed call reaches the host net allows and is
// refused the one it denies, by net's recorded rules, and the session
// verify-replays. The wide profile is first shown to let denied.test
// through by its own rule (the name then resolves nowhere: only
// localhost is a loopback name on every machine), so a resume that
// followed the configuration would show in the proxy's record.
func TestAResumedSessionKeepsItsRecordedNetworkRules(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	port, _ := loopbackServer(t)
	get := "curl -sS --max-time 10 http://localhost:" + port + "/; curl -sS -f --max-time 10 http://denied.test:" + port + "/; true"
	argv := []string{"sh", "-c", get}

	{
		home, work := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(wideConfig), 0o600); err != nil {
			t.Fatal(err)
		}
		r := egressSession(t, bin, home, work, "wide", []string{"-a", "never"}, argv)
		_, cs := networkRecords(t, home, r.threadID)
		var rules []string
		for _, c := range cs {
			rules = append(rules, c.Host+" "+c.Rule)
		}
		if r.code != 0 || len(rules) != 2 || !strings.Contains(rules[1], `allowed by permissions.wide.network.domains."denied.test"`) {
			t.Fatalf("under the wide profile denied.test is not let through by its rule, so the test would show nothing: exit %d %q\n%s", r.code, rules, r.out)
		}
	}

	for _, tc := range []struct {
		name string
		// run leaves a session under net that a resume continues, and
		// returns its id and the resume's arguments.
		run func(t *testing.T, home, ws string) (string, []string)
		// call is the id of the call the resume runs.
		call string
	}{
		{"switched with /permissions in chat, then killed", func(t *testing.T, home, ws string) (string, []string) {
			call := `{"output":[{"type":"function_call","call_id":"p2","name":"shell","arguments":{"command":` + jsonArgv(argv) + `,"workdir":"."}}]}`
			script := `{"output":[{"type":"message","content":"First done."}]}` + "\n" + call + "\n" + `{"output":[{"type":"message","content":"Second done."}]}` + "\n"
			sp := filepath.Join(t.TempDir(), "script.jsonl")
			if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			r := startChatEnv(t, bin, nil, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "--permissions", ":workspace", "--model-script", sp)
			r.scr.waitFor(t, 0, "approvals never")
			at := r.scr.mark()
			r.typeLine("first")
			r.idleAfter(at, "First done.")
			at = r.scr.mark()
			r.typeLine("/permissions net")
			r.scr.waitFor(t, at, "network through the egress proxy")
			// The switch is durable before it is shown: kill docket here.
			if err := r.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = r.cmd.Wait() // killed: its exit status says so
			paths, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "*.docket"))
			if len(paths) != 1 {
				t.Fatalf("journals after the kill: %v", paths)
			}
			return strings.TrimSuffix(filepath.Base(paths[0]), ".docket"), []string{"second"}
		}, "p2"},
		{"started under the profile by exec, then parked", func(t *testing.T, home, ws string) (string, []string) {
			r := egressSession(t, bin, home, ws, "net", []string{"-a", "untrusted"}, argv)
			if r.code != exitParked || r.threadID == "" {
				t.Fatalf("exec under net, untrusted: exit %d, want parked (%d)\n%s", r.code, exitParked, r.out)
			}
			return r.threadID, []string{"--decisions", "approved"}
		}, "c1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(egressConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			id, args := tc.run(t, home, ws)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(wideConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			res := exec.Command(bin, append([]string{"resume", "--json", id}, args...)...)
			res.Env = []string{"DOCKET_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
			out, _ := res.CombinedOutput()
			if code := res.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("resume exited %d:\n%s", code, out)
			}
			got := outputOf(t, string(out), "c1") // the resume's first command
			if !strings.Contains(got, "served localhost:"+port) {
				t.Errorf("the resumed call did not reach the host net allows: %q", got)
			}
			if strings.Contains(got, "served denied.test") {
				t.Errorf("the resumed call reached denied.test, which net denies: %q", got)
			}
			_, cs := networkRecords(t, home, id)
			var conns []string
			for _, c := range cs {
				if c.CallID == tc.call {
					conns = append(conns, fmt.Sprintf("%s %v %s", c.Host, c.Allowed, c.Rule))
				}
			}
			want := []string{"localhost true permissions.net.network.domains.localhost", `denied.test false permissions.net.network.domains."denied.test"`}
			if fmt.Sprint(conns) != fmt.Sprint(want) {
				t.Errorf("the proxy's connections for %s\n got %v\nwant %v", tc.call, conns, want)
			}
			if n := recordedNetProfiles(t, home, id); n != 1 {
				t.Errorf("%d records carry net's network rules, want 1", n)
			}
			rep := exec.Command(bin, "replay", "--home", home, id)
			if out, err := rep.CombinedOutput(); err != nil || !strings.Contains(string(out), "replay ok") {
				t.Fatalf("replay: %v\n%s", err, out)
			}
		})
	}
}

// jsonArgv is argv as a JSON array.
func jsonArgv(argv []string) string {
	b, _ := json.Marshal(argv) // a []string always marshals
	return string(b)
}

// journalBodies reads the bodies of a session's journal.
func journalBodies(t *testing.T, home, id string) []any {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", id+".docket"))
	if len(paths) != 1 {
		t.Fatalf("journal of %s: %v", id, paths)
	}
	j, err := journal.OpenReadOnly(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	recs, err := j.All()
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, r := range recs {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// recordedNetProfiles counts the records of a session's journal that
// carry the net profile's network rules, denied.test's deny among them.
func recordedNetProfiles(t *testing.T, home, id string) int {
	t.Helper()
	n := 0
	for _, b := range journalBodies(t, home, id) {
		var r *events.NetworkRules
		switch v := b.(type) {
		case *events.SessionStarted:
			r = v.Network
		case *events.PolicyChanged:
			if v.Permissions != nil {
				r = v.Permissions.Network
			}
		}
		if r == nil || r.Profile != "net" {
			continue
		}
		for _, d := range r.Domains {
			if d.Host == "denied.test" && d.Action == "deny" {
				n++
			}
		}
	}
	return n
}
