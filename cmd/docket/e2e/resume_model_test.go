package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docket-engine/docket/journal"
)

// TestResumeGoesOnWithTheRecordedScript: a session started with
// --model-script and parked on an approval resumes with the same script,
// positioned after what it consumed, without --model-script and without
// any network credentials. Flags resume cannot honour are errors, and a
// resume that fails before it starts (the script is gone, the provider has
// no credentials) writes nothing, so a later resume still works.
func TestResumeGoesOnWithTheRecordedScript(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := writeScript(t,
		`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c","echo ran >> ran.txt"]}}]}`,
		`{"output":[{"type":"message","content":"finished after c1"}]}`)
	noKey := []string{"OPENAI_API_KEY=", "DOCKET_MODEL="}
	r := docket(t, noKey, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "untrusted", "-s", "workspace-write",
		"--model-script", script, "go")
	if r.code != 3 {
		t.Fatalf("exec should park (exit 3), got %d\n%s", r.code, r.stderr)
	}
	id := sessionIDs(t, home)[0]
	sf, err := journal.Find(home, id)
	if err != nil {
		t.Fatal(err)
	}
	records := func() int { return len(readJournal(t, sf.Path)) }
	parked := records()

	failing := []struct {
		name string
		env  []string
		args []string
		// prep breaks something for the attempt and returns its repair.
		prep    func() func()
		wantErr string
	}{
		{name: "-a is refused", args: []string{"-a", "never"}, wantErr: "-a/--ask-for-approval does not apply to resume"},
		{name: "-s is refused", args: []string{"-s", "danger-full-access"}, wantErr: "-s/--sandbox does not apply to resume"},
		{name: "the recorded script is gone", prep: func() func() {
			moved := script + ".away"
			if err := os.Rename(script, moved); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := os.Rename(moved, script); err != nil {
					t.Fatal(err)
				}
			}
		}, wantErr: filepath.Base(script)},
		{name: "a network provider without credentials", args: []string{"-c", "model_provider=openai"}, wantErr: "no credentials"},
	}
	for _, f := range failing {
		t.Run(f.name, func(t *testing.T) {
			if f.prep != nil {
				defer f.prep()()
			}
			args := append([]string{"resume", id, "--home", home, "--decisions", "approved"}, f.args...)
			r := docket(t, noKey, args...)
			if r.code == 0 || r.code == 3 {
				t.Fatalf("resume should fail, got exit %d\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, f.wantErr) {
				t.Fatalf("stderr should say %q:\n%s", f.wantErr, r.stderr)
			}
			if n := records(); n != parked {
				t.Fatalf("a failed resume wrote %d records; the session must stay as it was", n-parked)
			}
			if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
				t.Fatal("a failed resume ran the call")
			}
		})
	}

	r = docket(t, noKey, "resume", id, "--home", home, "--decisions", "approved")
	if r.code != 0 {
		t.Fatalf("resume with the recorded script: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "finished after c1") {
		t.Fatalf("the resumed turn did not get the script's next response: stdout %q", r.stdout)
	}
	b, err := os.ReadFile(filepath.Join(ws, "ran.txt"))
	if err != nil || string(b) != "ran\n" {
		t.Fatalf("the approved call should have run once: %q %v", b, err)
	}
}

// TestResumeUsesTheSessionsProjectConfig: resume run from another directory
// goes on under the session's own project settings (its trusted
// .docket/config.toml), not those of where it happens to run.
func TestResumeUsesTheSessionsProjectConfig(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := gitWorkspace(t)
	writeFile(t, filepath.Join(home, "config.toml"), "[projects."+strconv.Quote(ws)+"]\ntrust_level = \"trusted\"\n")
	writeFile(t, filepath.Join(ws, ".docket", "config.toml"), "[shell_environment_policy]\nset = { PROJECT_MARK = \"from-project\" }\n")
	script := writeScript(t,
		`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c","echo mark=$PROJECT_MARK >> mark.txt"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	r := docket(t, nil, "exec", "--home", home, "-C", ws, "-a", "untrusted", "-s", "workspace-write", "--model-script", script, "go")
	if r.code != 3 {
		t.Fatalf("exec should park (exit 3), got %d\n%s", r.code, r.stderr)
	}
	id := sessionIDs(t, home)[0]
	r = docket(t, nil, "resume", id, "--home", home, "-C", t.TempDir(), "--decisions", "approved")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(ws, "mark.txt"))
	if err != nil || string(b) != "mark=from-project\n" {
		t.Fatalf("the resumed call ran without the session's project config: %q %v\n%s", b, err, r.stderr)
	}
}
