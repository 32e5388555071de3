package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// stubRecordsFixture is a writable root ws with a read-only subpath
// ws/home, a directory outside it, and links each way: ws/out-link to
// outside/sub, outside/in-link to ws/sub.
type stubRecordsFixture struct {
	ws, outside string
	plan        events.SandboxPlan
}

func newStubRecordsFixture(t *testing.T) stubRecordsFixture {
	t.Helper()
	// Resolved, as a session's plan comes: the temporary directory may
	// itself lie behind a link.
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(ws, "sub"), filepath.Join(ws, "home"), filepath.Join(outside, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "sub"), filepath.Join(ws, "out-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(outside, "in-link")); err != nil {
		t.Fatal(err)
	}
	return stubRecordsFixture{ws: ws, outside: outside,
		plan: events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{ws}, ReadOnlySubpaths: []string{filepath.Join(ws, "home")}}}
}

// The records are compared as the kernel resolves them when docket writes
// there: "link/.." is the parent of the link's target, so records written
// as ws/out-link/../stubs lie outside the root (used) and records written
// as outside/in-link/../stubs lie in it (refused); a plain path in the
// root is refused, one in the read-only subpath or outside is used.
func TestStubRecordsAreComparedAsTheKernelResolvesThem(t *testing.T) {
	f := newStubRecordsFixture(t)
	for _, tc := range []struct {
		name, records string
		refused       bool
	}{
		{"link/.. out of the root", filepath.Join(f.ws, "out-link") + "/../stubs", false},
		{"link/.. into the root", filepath.Join(f.outside, "in-link") + "/../stubs", true},
		{"a link into the root", filepath.Join(f.outside, "in-link", "stubs"), true},
		{"in the root", filepath.Join(f.ws, "stubs"), true},
		{"in the read-only subpath", filepath.Join(f.ws, "home", "stubs"), false},
		{"outside", filepath.Join(f.outside, "stubs"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkStubRecords(tc.records, f.plan)
			if tc.refused && (err == nil || !strings.Contains(err.Error(), "writable root "+f.ws)) {
				t.Fatalf("records %s should be refused naming the root: %v", tc.records, err)
			}
			if !tc.refused && err != nil {
				t.Fatalf("records %s should be used: %v", tc.records, err)
			}
		})
	}
}

// A session's check resolves the paths of a settled pass once: records
// outside every root, written without a link, under a resolved plan. A
// pass through a link, or in a read-only subpath, is checked on every
// run, because a command may point a link in its root elsewhere between
// runs; here the test moves the link as such a command would, and the
// next run is refused. A refusal is never remembered.
func TestStubRecordsCheckRemembersOnlySettledPasses(t *testing.T) {
	f := newStubRecordsFixture(t)
	var c StubRecordsCheck

	// Through ws/home-link, a link in the root, to a home outside it.
	home := filepath.Join(f.outside, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(f.ws, "home-link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(link, "stubs")
	if err := c.check(viaLink, f.plan); err != nil {
		t.Fatalf("records behind a link to outside the root should be used: %v", err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.ws, "sub"), link); err != nil {
		t.Fatal(err)
	}
	if err := c.check(viaLink, f.plan); err == nil {
		t.Fatal("the link, pointed into the root after a pass, still passed: a pass through a link was remembered")
	}

	// A refusal is checked again: once the records are out of the root's
	// reach, the same path passes.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	if err := c.check(viaLink, f.plan); err != nil {
		t.Fatalf("a refusal was remembered: %v", err)
	}

	// Settled: checked once. The test then moves the records' parent
	// into the root behind the check's back, which no sandboxed command
	// can do (it lies outside every root), and the remembered pass holds.
	settled := filepath.Join(f.outside, "docket", "stubs")
	if err := os.MkdirAll(settled, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := c.check(settled, f.plan); err != nil {
		t.Fatalf("records outside the root should be used: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(f.outside, "docket")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.ws, filepath.Join(f.outside, "docket")); err != nil {
		t.Fatal(err)
	}
	if err := checkStubRecords(settled, f.plan); err == nil {
		t.Fatal("the moved records should fail a fresh check, or the test shows nothing")
	}
	if err := c.check(settled, f.plan); err != nil {
		t.Fatalf("a settled pass was checked again: %v", err)
	}
	// Another plan is another check.
	other := f.plan
	other.WritableRoots = []string{f.ws, f.outside}
	if err := c.check(settled, other); err == nil {
		t.Fatal("a plan never checked passed on another plan's memory")
	}
}
