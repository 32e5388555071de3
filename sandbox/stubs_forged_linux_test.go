package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// forgedRecord is a stub record naming dir, as a command that read
// docket's source would write one: the path and the identity (device,
// inode, birth) any process can read with statx.
func forgedRecord(t *testing.T, dir string) []byte {
	t.Helper()
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, dir, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &sx); err != nil {
		t.Fatal(err)
	}
	rec := map[string]any{"path": dir, "dev": unix.Mkdev(sx.Dev_major, sx.Dev_minor), "ino": sx.Ino}
	if sx.Mask&unix.STATX_BTIME != 0 {
		rec["birth"] = sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStubRecordsInsideAWritableRootRefused: with the stub records in a
// writable root, a command forges a record naming the user's empty 0555
// directory and the next start (stubs.RemoveLeft) removes it. The run is
// refused before the command starts, naming the records; records in a
// read-only subpath of the root (as the session keeps Docket's home) are
// used as before.
func TestStubRecordsInsideAWritableRootRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	ws := t.TempDir()
	mine := filepath.Join(t.TempDir(), "mine")
	if err := os.Mkdir(mine, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(mine, 0o755) })
	forged := filepath.Join(t.TempDir(), "forged.json")
	if err := os.WriteFile(forged, forgedRecord(t, mine), 0o644); err != nil {
		t.Fatal(err)
	}

	// The attack works when a record lands in the records: a command that
	// can write there would have the user's directory removed.
	control := filepath.Join(t.TempDir(), "stubs")
	if err := os.MkdirAll(control, 0o700); err != nil {
		t.Fatal(err)
	}
	mineToo := filepath.Join(t.TempDir(), "mine")
	if err := os.Mkdir(mineToo, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(control, "forged.json"), forgedRecord(t, mineToo), 0o600); err != nil {
		t.Fatal(err)
	}
	if removed, err := stubs.RemoveLeft(control); err != nil || len(removed) != 1 {
		t.Fatalf("the forged record should have had the user's directory removed (the attack this test guards against): %v %v", removed, err)
	}

	records := filepath.Join(ws, "home", "stubs")
	forge := []string{"sh", "-c", "mkdir -p '" + records + "' && cp '" + forged + "' '" + records + "/forged.json'"}
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{ws}}
	out, err := Run(context.Background(), Request{Argv: forge, Cwd: ws, Plan: plan, StubRecords: records})
	if err == nil || !strings.Contains(err.Error(), records) || !strings.Contains(err.Error(), "writable root "+ws) {
		t.Fatalf("a run whose stub records lie in a writable root should be refused naming them: err=%v out=%+v", err, out)
	}
	if _, err := os.Stat(filepath.Join(records, "forged.json")); !os.IsNotExist(err) {
		t.Fatalf("the refused run's command ran and forged a record: %v", err)
	}
	if _, err := stubs.RemoveLeft(records); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Fatalf("the user's directory is gone: %v", err)
	}

	// Through a symlink into the root: refused as well.
	link := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(filepath.Join(ws, "home"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Request{Argv: forge, Cwd: ws, Plan: plan, StubRecords: filepath.Join(link, "stubs")}); err == nil {
		t.Fatal("stub records reached through a symlink into a writable root were used")
	}

	// Read-only in the sandbox, as the session keeps Docket's home: the
	// run goes on and the command cannot forge.
	plan.ReadOnlySubpaths = []string{filepath.Join(ws, "home")}
	if err := os.MkdirAll(records, 0o700); err != nil {
		t.Fatal(err)
	}
	out, err = Run(context.Background(), Request{Argv: forge, Cwd: ws, Plan: plan, StubRecords: records})
	if err != nil {
		t.Fatalf("records in a read-only subpath should be usable: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(records, "forged.json")); Probe().Namespaces() && (out.ExitCode == 0 || serr == nil) {
		t.Fatalf("the command wrote into read-only records: exit %d, %v", out.ExitCode, serr)
	}
}
