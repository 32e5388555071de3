package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// setMark is a command setting docket's stub mark on "$T/.git" to a value
// of its own choosing, as a command that read docket's source would (the
// chmod first: a user attribute needs write permission).
const setMark = `chmod u+w "$T/.git" && python3 -c 'import os; os.setxattr(os.environ["T"] + "/.git", "user.docket.stub", b"0:0:0")'`

// TestAStubSharedBySessionsWithTwoHomesIsRemovedByTheLastOneOut: two
// sessions with different homes (records directories) keep the stubs of
// one temporary root; the one that made them ends first, so their records
// stay in its home, and the other, ending last with no record of them,
// still removes them by docket's mark. A command of the last session
// cannot change the mark on the stub it is given (bound read-only); the
// same command unsandboxed can.
func TestAStubSharedBySessionsWithTwoHomesIsRemovedByTheLastOneOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	if !Probe().Namespaces() {
		t.Skip("needs a mount namespace to bind stubs")
	}
	tmp := t.TempDir()
	if err := unix.Setxattr(tmp, "user.docket.probe", []byte("1"), 0); errors.Is(err, unix.ENOTSUP) {
		t.Skipf("%s keeps no user extended attributes: stubs there go unmarked", tmp)
	}
	names := []string{".git", ".docket", ".agents", ".codex"}
	var protected []string
	for _, n := range names {
		protected = append(protected, filepath.Join(tmp, n))
	}
	type session struct {
		keeper  *stubs.Keeper
		records string
	}
	newSession := func() session {
		return session{keeper: &stubs.Keeper{}, records: filepath.Join(t.TempDir(), "home", "stubs")}
	}
	run := func(s session, argv ...string) events.ExecOutcome {
		t.Helper()
		w := t.TempDir()
		plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w, tmp}, ReadOnlySubpaths: protected}
		out, err := Run(context.Background(), Request{Argv: argv, Cwd: w, Env: []string{"T=" + tmp, "PATH=/usr/bin:/bin"},
			Plan: plan, Timeout: time.Minute, Stubs: s.keeper, StubsIn: []string{tmp}, StubRecords: s.records, HelperPath: testBinary(t)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := newSession(), newSession()
	t.Cleanup(func() { _ = a.keeper.Close(); _ = b.keeper.Close() })
	if out := run(a, "true"); out.ExitCode != 0 {
		t.Fatalf("the maker's call: exit %d: %s", out.ExitCode, out.Stderr)
	}
	if out := run(b, "bash", "-c", setMark); out.ExitCode == 0 || !strings.Contains(out.Stderr, "Read-only file system") {
		t.Fatalf("a sandboxed command setting the mark on the stub it was given: exit %d, stderr %q; want EROFS", out.ExitCode, out.Stderr)
	}
	if err := a.keeper.Close(); err != nil { // the maker leaves first: not the last one out
		t.Fatal(err)
	}
	for _, n := range names {
		if !exists(filepath.Join(tmp, n)) {
			t.Fatalf("%s removed while another session keeps it", n)
		}
	}
	if err := b.keeper.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if exists(filepath.Join(tmp, n)) {
			t.Errorf("%s left in the temporary root after the last session out ended", n)
		}
	}

	// The command does change the mark where no sandbox binds the stub.
	stub := filepath.Join(tmp, ".git")
	if err := os.Mkdir(stub, stubs.Mode); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, Request{Argv: []string{"bash", "-c", setMark}, Cwd: tmp, Env: []string{"T=" + tmp, "PATH=/usr/bin:/bin"},
		Plan: events.SandboxPlan{Mode: ModeNone}})
	if out.ExitCode != 0 {
		t.Fatalf("unsandboxed, setting the mark failed too, so the check above proves nothing: exit %d %s", out.ExitCode, out.Stderr)
	}
}
