package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
)

// TestASessionKeepsTheStubsOfItsTemporaryRoot: in a workspace-write
// session, the empty read-only stubs docket makes directly in $TMPDIR
// (a private one here, /tmp left out) stay from one call to the next and
// stay read-only to later calls, the workspace keeps none after a call,
// and closing the session removes them.
func TestASessionKeepsTheStubsOfItsTemporaryRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	dir := t.TempDir()
	work, home, tmp := filepath.Join(dir, "work"), filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	for _, d := range []string{work, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(tmp, "old"), 0o755) })
	attack := fmt.Sprintf(`mv %[1]s/.git %[1]s/old && mkdir -p %[1]s/.git/hooks && echo evil > %[1]s/.git/hooks/pre-commit`, tmp)
	call := func(id, cmdline string) string {
		return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["bash","-c",%q]}}]}`+"\n", id, cmdline) +
			`{"output":[{"type":"message","content":"done"}]}` + "\n"
	}
	script := call("c1", "echo ran > ran") + call("c2", attack) + call("c3", attack)
	s, err := session.Open(context.Background(), session.Options{Workspace: work, Home: home, Model: scripted(t, script),
		Rules: []events.RuleSource{}, Policy: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write",
			ExcludeSlashTmp: true, TmpdirEnv: tmp}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	if !slicesContain(s.Config().Plan.WritableRoots, tmp) {
		t.Fatalf("the plan does not have the private TMPDIR %s writable: %v", tmp, s.Config().Plan.WritableRoots)
	}
	names := []string{".git", ".docket", ".agents", ".codex"}
	kept := func(when string) {
		t.Helper()
		for _, n := range names {
			fi, err := os.Lstat(filepath.Join(tmp, n))
			if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o555 {
				t.Errorf("%s: $TMPDIR/%s is not a kept stub: %v %v", when, n, fi, err)
			}
			if _, err := os.Lstat(filepath.Join(work, n)); !os.IsNotExist(err) {
				t.Errorf("%s: the workspace's %s outlived the call (%v)", when, n, err)
			}
		}
	}
	for i, prompt := range []string{"first", "second", "third"} {
		if _, err := s.Turn(context.Background(), prompt); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, err := os.Stat(filepath.Join(work, "ran")); err != nil {
				t.Fatalf("the first call did not run: %v", err)
			}
		}
		kept("after the " + prompt + " call")
		if _, err := os.Lstat(filepath.Join(tmp, ".git", "hooks")); err == nil {
			t.Fatalf("the %s call replaced $TMPDIR/.git", prompt)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(tmp, n)); !os.IsNotExist(err) {
			t.Errorf("$TMPDIR/%s outlived the session (%v)", n, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "stubs")); len(ents) != 0 {
		var left []string
		for _, e := range ents {
			left = append(left, e.Name())
		}
		t.Errorf("stub records outlived the session: %s", strings.Join(left, ", "))
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
