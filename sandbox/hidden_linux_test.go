package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// hiddenAttacks try every way to the secret the test hides, one line each.
const hiddenAttacks = `
s=$HD_DIR
echo "direct: $(cat $s/id_key 2>&1 | tr '\n' ' ')"
echo "listing: $(ls -A $s 2>&1 | tr '\n' ' ')"
echo "symlink: $(cat $LINK 2>&1 | tr '\n' ' ')"
echo "proc-root: $(cat /proc/self/root$s/id_key 2>&1 | tr '\n' ' ')"
echo "proc-cwd: $( (cd $(dirname $s) && cat /proc/self/cwd/$(basename $s)/id_key) 2>&1 | tr '\n' ' ')"
echo "file: $(cat $FILE 2>&1 | tr '\n' ' ')"
echo "rename: $( (mv $W/parent $W/moved && cat $W/moved/secret.env) 2>&1 | tr '\n' ' ')"
`

func TestHiddenPathsCannotBeReadByAnyPath(t *testing.T) {
	caps := Probe()
	if !caps.Namespaces() {
		t.Skip("hidden paths need a mount namespace")
	}
	outside, w, links := t.TempDir(), t.TempDir(), t.TempDir()
	secretDir := filepath.Join(outside, "ssh")
	file := filepath.Join(outside, "aws-credentials")
	inRoot := filepath.Join(w, "parent", "secret.env")
	for p, text := range map[string]string{filepath.Join(secretDir, "id_key"): "KEY-SECRET", file: "AWS-SECRET", inRoot: "ENV-SECRET"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(links, "innocent")
	if err := os.Symlink(filepath.Join(secretDir, "id_key"), link); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "HD_DIR=" + secretDir, "LINK=" + link, "FILE=" + file, "W=" + w}
	run := func(plan events.SandboxPlan) string {
		t.Helper()
		out, err := Run(t.Context(), Request{Argv: []string{"bash", "-c", hiddenAttacks}, Cwd: w, Plan: plan, Env: env, Caps: &caps})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return out.Stdout
	}
	// Without the hidden paths every way reads the secrets (the rename
	// runs last, so the tree is put back for the sandboxed run).
	plain := run(events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}})
	for _, want := range []string{"direct: KEY-SECRET", "symlink: KEY-SECRET", "proc-root: KEY-SECRET", "proc-cwd: KEY-SECRET", "file: AWS-SECRET", "rename: ENV-SECRET"} {
		if !strings.Contains(plain, want) {
			t.Fatalf("without hiding, %q should work:\n%s", want, plain)
		}
	}
	if err := os.Rename(filepath.Join(w, "moved"), filepath.Join(w, "parent")); err != nil {
		t.Fatal(err)
	}

	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}, Hidden: []string{filepath.Join(w, "parent", "secret.env"), file, secretDir}}
	got := run(plan)
	for _, secret := range []string{"KEY-SECRET", "AWS-SECRET", "ENV-SECRET", "id_key\n"} {
		if strings.Contains(got, secret) {
			t.Errorf("a hidden secret was read (%q):\n%s", secret, got)
		}
	}
	if !strings.Contains(got, "listing: \n") {
		t.Errorf("the hidden directory does not look empty:\n%s", got)
	}
	if st, err := os.Stat(filepath.Join(w, "moved")); err == nil && st.IsDir() {
		// The rename inside the writable root may succeed; what matters is
		// that the content under it stayed hidden (checked above).
		_ = os.Rename(filepath.Join(w, "moved"), filepath.Join(w, "parent"))
	}
	if b, err := os.ReadFile(inRoot); err != nil || string(b) != "ENV-SECRET" {
		t.Errorf("the hidden file itself was changed: %q %v", b, err)
	}
}

func TestAHiddenFileThatGainedAHardLinkIsRefused(t *testing.T) {
	caps := Probe()
	if !caps.Namespaces() {
		t.Skip("hidden paths need a mount namespace")
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("S"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(secret, filepath.Join(dir, "other-name")); err != nil {
		t.Fatal(err)
	}
	_, err := Run(t.Context(), Request{Argv: []string{"true"}, Plan: events.SandboxPlan{Mode: ModeReadOnly, Hidden: []string{secret}}, Caps: &caps})
	if err == nil || !strings.Contains(err.Error(), "hard links") {
		t.Fatalf("err = %v, want the hard link refused", err)
	}
}
