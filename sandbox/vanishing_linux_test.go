package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// TestVanishingPathsNeverBuyAWeakerSandbox: the file system can change
// between the parent's plan and the helper's mounts (another process, or
// another sandboxed command running in parallel, removes a directory). A
// repository the git walk found that is gone by then is skipped; a path
// the plan asked to protect that is gone fails the call. Neither may make
// Run fall back to a weaker namespace setup, which is what a path error
// reported as a refused mount namespace used to do.
func TestVanishingPathsNeverBuyAWeakerSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	if !caps.Namespaces() {
		t.Skip("needs a mount namespace to protect paths at all")
	}
	tests := []struct {
		name string
		// vanish is the path (relative to W) removed after the parent
		// planned the call and before the helper mounts anything.
		vanish string
		wantOK bool
	}{
		{"a nested repository the walk found", "sub/.git", true},
		{"the workspace's own .git the plan protects", ".git", false},
		{"the writable root itself", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if err := os.MkdirAll(filepath.Join(f.W, "sub", ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			gone := filepath.Join(f.W, tt.vanish)
			// The stand-in removes the path, then runs the real helper.
			helper := fakeHelper(t, "__never__", "rm -rf '"+gone+"'; exec '"+testBinary(t)+"' \"$@\"")
			c := caps
			var runs int
			out, err := Run(context.Background(), Request{Argv: []string{"sh", "-c", "echo ran"}, Cwd: f.W, Plan: f.plan(vWW),
				HelperPath: helper, Caps: &c, Timeout: time.Minute,
				OnOutput: func(_ string, b []byte) { runs += strings.Count(string(b), "ran") }})
			if len(out.Fallbacks) != 0 {
				t.Fatalf("fell back to a weaker setup: %q", out.Fallbacks)
			}
			if exists(gone) {
				t.Fatalf("%s still exists: the stand-in did not remove it, so the case proves nothing", gone)
			}
			if tt.wantOK {
				if err != nil || runs != 1 || !strings.Contains(strings.Join(out.Layers, " "), layers.MountNS) {
					t.Fatalf("err=%v runs=%d layers=%v: want one run with the mount layer", err, runs, out.Layers)
				}
				return
			}
			if err == nil || runs != 0 {
				t.Fatalf("err=%v runs=%d: want the call to fail before the command ran", err, runs)
			}
			if !strings.Contains(err.Error(), proto.LayerProtectedPaths) {
				t.Errorf("error %q does not name %s", err, proto.LayerProtectedPaths)
			}
		})
	}
}

// TestHoldingNeverRecreatesAVanishedRepository: a repository the git walk
// found and that is gone by the time the call holds its protected paths
// (another session's, or a test's directory being removed) gets no
// stub: creating one would write into a tree that is not ours and
// race whoever is removing it. A path the plan asks for still gets one.
func TestHoldingNeverRecreatesAVanishedRepository(t *testing.T) {
	w := t.TempDir()
	gone := filepath.Join(w, "other", ".git")
	asked := filepath.Join(w, ".git")
	if err := os.MkdirAll(filepath.Dir(gone), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Writable: []string{w}, CallSpec: proto.CallSpec{Protected: []string{asked, gone}, Scanned: []string{gone}}}
	for _, tt := range []struct {
		name string
		req  Request
	}{
		{"per call", Request{}},
		{"per session", Request{Stubs: &stubs.Keeper{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.req.Stubs != nil {
				defer tt.req.Stubs.Close()
			}
			got, release, err := holdStubs(tt.req, spec)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			if exists(gone) {
				t.Errorf("a stub was made for the vanished %s", gone)
			}
			if !exists(asked) {
				t.Errorf("no stub for the plan's %s", asked)
			}
			if !slices.Contains(got.Protected, gone) || !slices.Contains(got.Scanned, gone) {
				t.Errorf("protected %v, scanned %v: the walk's find must still be passed on, to be skipped by the helper if still gone", got.Protected, got.Scanned)
			}
		})
	}
}

// TestWalkFindsAreNeverHeld: a .git the walk finds below a root is somebody
// else's (another session's stub, a test's tree being removed). It
// must reach the helper as scanned, so that if it vanishes before the hold
// no directory is made in their tree; only the roots' own surroundings and
// what a found gitdir file names are held.
func TestWalkFindsAreNeverHeld(t *testing.T) {
	w := t.TempDir()
	ws := filepath.Join(w, "ws")
	foreign := filepath.Join(w, "other", ".git")
	mkdirs(t, ws, foreign, filepath.Join(w, "wt"))
	// A worktree's .git file naming a directory that does not exist: its
	// target is where a repository would be planted, so it is held.
	dangling := filepath.Join(w, "planted")
	if err := os.WriteFile(filepath.Join(w, "wt", ".git"), []byte("gitdir: "+dangling+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w, ws},
		ReadOnlySubpaths: []string{filepath.Join(ws, ".git")}, Network: true}
	facts := hostFacts{cwd: ws, roots: []string{w, ws}}
	readHostFacts(&facts, plan, nil, nil)
	spec := specFor(plan, facts)
	if !slices.Contains(spec.Scanned, foreign) {
		t.Fatalf("the walk's find %s is not scanned: %v", foreign, spec.Scanned)
	}
	if slices.Contains(spec.Scanned, filepath.Join(w, ".git")) {
		t.Errorf("the stub above the workspace is scanned: it must be held")
	}
	if err := os.Remove(foreign); err != nil {
		t.Fatal(err)
	}
	_, release, err := holdStubs(Request{}, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if exists(foreign) {
		t.Errorf("a directory was made in somebody else's tree at %s", foreign)
	}
	if !exists(filepath.Join(w, ".git")) {
		t.Errorf("no stub above the workspace")
	}
	if slices.Contains(spec.Scanned, dangling) || !exists(dangling) {
		t.Errorf("the dangling gitdir target %s is not held (scanned %v)", dangling, spec.Scanned)
	}
}
