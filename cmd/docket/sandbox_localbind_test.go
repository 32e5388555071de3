package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// allow_local_binding through the binary: a command whose network goes
// through the egress proxy binds and listens on a TCP port of its own
// loopback when the profile allows it (the attack works without the
// rule), and is refused when it does not (the default): Landlock handles
// TCP bind then.
func TestSandboxAllowLocalBinding(t *testing.T) {
	bin := cliBinary(t)
	home, work := bindProfiles(t)
	run := func(profile string) (int, string) {
		cmd := exec.Command(bin, "sandbox", "-C", work, "--permissions", profile, "--", "perl", "-e", listenScript)
		cmd.Env = []string{"DOCKET_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	if code, out := run("bindok"); code != 0 || !strings.Contains(out, "listening on ") {
		t.Fatalf("allow_local_binding = true: the command could not listen: exit %d\n%s", code, out)
	}
	code, out := run("nobind")
	if code == 0 || strings.Contains(out, "listening on ") || !strings.Contains(out, "bind: Permission denied") {
		t.Fatalf("allow_local_binding unset: the command listened (or failed for another reason): exit %d\n%s", code, out)
	}
}

// allow_local_binding in a session (docket exec --permissions): the plan a
// session journals carries the profile's local binding, so a command run
// by the model listens on its own loopback when the profile allows it and
// is refused when it does not.
func TestSessionAllowLocalBinding(t *testing.T) {
	bin := cliBinary(t)
	home, work := bindProfiles(t)
	listen := []string{"perl", "-e", listenScript}
	ok := egressSession(t, bin, home, work, "bindok", []string{"-a", "never"}, listen)
	if got := outputOf(t, ok.out, "c1"); ok.code != 0 || !strings.Contains(got, "listening on ") {
		t.Fatalf("allow_local_binding = true: the command could not listen: exit %d %q\n%s", ok.code, got, ok.out)
	}
	no := egressSession(t, bin, home, work, "nobind", []string{"-a", "never"}, listen)
	if got := outputOf(t, no.out, "c1"); strings.Contains(got, "listening on ") || !strings.Contains(got, "bind: Permission denied") {
		t.Fatalf("allow_local_binding unset: the command listened (or failed for another reason): %q\n%s", got, no.out)
	}
}

// listenScript binds and listens on a TCP port of loopback, printing
// "listening on PORT", or dies with "bind: " and the errno's text.
const listenScript = `use IO::Socket::INET; my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 1, Proto => "tcp") or die "bind: $!\n"; print "listening on ", $s->sockport, "\n";`

// bindProfiles makes a docket home whose config has two profiles with
// network on through the proxy: bindok allows local binding, nobind does
// not (the default). It returns the home and a workspace.
func bindProfiles(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	config := `[permissions.bindok.filesystem]
":root" = "read"

[permissions.bindok.network]
enabled = true
allow_local_binding = true

[permissions.nobind.filesystem]
":root" = "read"

[permissions.nobind.network]
enabled = true
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, work
}
