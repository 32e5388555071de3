package proctree_test

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/sandbox/layers"
	"github.com/docket-engine/docket/sandbox/proctree"
	"github.com/docket-engine/docket/sandbox/proctree/proctreetest"
)

// only is the Options that leave m as the strongest mechanism.
func only(m proctree.Mechanism) proctree.Options {
	switch m {
	case proctree.CgroupV1:
		return proctree.Options{Without: []proctree.Mechanism{proctree.CgroupV2}}
	case proctree.ProcessGroup:
		return proctree.Options{Without: []proctree.Mechanism{proctree.CgroupV2, proctree.CgroupV1}}
	}
	return proctree.Options{}
}

// started starts the daemon's script in a new tree of mechanism m, with
// stdout captured through a pipe the daemon inherits.
func started(t *testing.T, m proctree.Mechanism, d proctreetest.Daemon, wait bool) (*proctree.Tree, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	tree := proctree.New(only(m))
	var out bytes.Buffer
	cmd, err := tree.Start(func() *exec.Cmd {
		c := exec.Command("sh", "-c", d.Script(wait))
		c.Stdout = &out
		// Bounds a Wait that hangs on the daemon's copy of stdout.
		c.WaitDelay = 2 * time.Second
		return c
	})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Mechanism() != m {
		_ = tree.Close()
		t.Skipf("this machine gives %s, not %s (no write access to that cgroup hierarchy)", tree.Mechanism(), m)
	}
	return tree, cmd, &out
}

// TestSetsidDaemonOutlivesAProcessGroupKill is the attack without the
// fix: with the process group alone, a daemon that called setsid survives
// its command's exit and the kill of the group, and holds the output pipe
// open so that Wait runs into its WaitDelay.
func TestSetsidDaemonOutlivesAProcessGroupKill(t *testing.T) {
	d := proctreetest.NewDaemon(t)
	tree, cmd, _ := started(t, proctree.ProcessGroup, d, false)
	err := tree.Wait(cmd)
	closeErr := tree.Close()
	pid := d.Pid(t)
	defer d.Kill(pid)
	if closeErr != nil {
		t.Fatal(closeErr)
	}
	if !errors.Is(err, exec.ErrWaitDelay) {
		t.Errorf("Wait: %v, want it to wait for the daemon's copy of stdout until WaitDelay", err)
	}
	if !d.Alive(pid) {
		t.Fatalf("daemon %d died with its process group: the attack does not work here, so the fix proves nothing", pid)
	}
}

// TestTreeKillsASetsidDaemon: in a cgroup tree the daemon dies when the
// command exits, and when the command is killed while it runs; Wait does
// not hang on the daemon's copy of stdout.
func TestTreeKillsASetsidDaemon(t *testing.T) {
	for _, m := range []proctree.Mechanism{proctree.CgroupV2, proctree.CgroupV1} {
		for _, tc := range []struct {
			name string
			wait bool // the command runs on and is killed
		}{
			{"the command exits", false},
			{"the command is killed", true},
		} {
			t.Run(string(m)+"/"+tc.name, func(t *testing.T) {
				d := proctreetest.NewDaemon(t)
				tree, cmd, out := started(t, m, d, tc.wait)
				pid := d.Pid(t)
				defer d.Kill(pid)
				if tc.wait {
					if err := tree.Kill(); err != nil {
						t.Fatal(err)
					}
				}
				err := tree.Wait(cmd)
				if errors.Is(err, exec.ErrWaitDelay) {
					t.Errorf("Wait hung on the daemon's stdout until WaitDelay")
				}
				if tc.wait == (err == nil) {
					t.Errorf("Wait: %v (the killed command must fail, the other exit 0)", err)
				}
				if err := tree.Close(); err != nil {
					t.Fatal(err)
				}
				d.WaitGone(t, pid)
				// A killed command may die before it prints.
				if !tc.wait && !strings.Contains(out.String(), "started") {
					t.Errorf("stdout %q lost", out.String())
				}
			})
		}
	}
}

// TestTreeKillsAForkingStorm: a tree whose processes keep forking new
// setsid children is still emptied by one Kill.
func TestTreeKillsAForkingStorm(t *testing.T) {
	for _, m := range []proctree.Mechanism{proctree.CgroupV2, proctree.CgroupV1} {
		t.Run(string(m), func(t *testing.T) {
			tree := proctree.New(only(m))
			cmd, err := tree.Start(func() *exec.Cmd {
				return exec.Command("sh", "-c", `for i in 1 2 3 4; do setsid -f sh -c 'while :; do setsid -f sleep 1000; sleep 0.01; done'; done; exec sleep 1000`)
			})
			if err != nil {
				t.Fatal(err)
			}
			if tree.Mechanism() != m {
				_ = tree.Close()
				t.Skipf("this machine gives %s, not %s", tree.Mechanism(), m)
			}
			time.Sleep(100 * time.Millisecond) // let the storm grow; the outcome does not depend on it
			if err := tree.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = tree.Wait(cmd) // killed: an error
			if err := tree.Close(); err != nil {
				t.Fatalf("the storm survived: %v", err)
			}
		})
	}
}

// TestLayerNamesAreTheVocabularys keeps the mechanisms' layer names equal
// to the ones the audit explains (package layers).
func TestLayerNamesAreTheVocabularys(t *testing.T) {
	if got := proctree.ProcessGroup.Layer(); got != layers.TreeKillPGroup {
		t.Errorf("ProcessGroup.Layer() = %q, the audit knows %q", got, layers.TreeKillPGroup)
	}
}
