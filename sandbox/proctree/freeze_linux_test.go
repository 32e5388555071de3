package proctree

import (
	"os/exec"
	"testing"

	"github.com/docket-engine/docket/sandbox/proctree/proctreetest"
)

// TestV2FreezeKillsASetsidDaemon: on a kernel without cgroup.kill (before
// 5.14) a v2 leaf is frozen and every member killed; a daemon that left the
// process group, and children it keeps forking, die all the same.
func TestV2FreezeKillsASetsidDaemon(t *testing.T) {
	tree := New(Options{freezeV2: true})
	if tree.Mechanism() != CgroupV2 {
		_ = tree.Close()
		t.Skipf("this machine gives %s, not a v2 leaf", tree.Mechanism())
	}
	d := proctreetest.NewDaemon(t)
	cmd, err := tree.Start(func() *exec.Cmd { return exec.Command("sh", "-c", d.Script(false)) })
	if err != nil {
		t.Fatal(err)
	}
	pid := d.Pid(t)
	defer d.Kill(pid)
	if err := tree.Wait(cmd); err != nil {
		t.Fatal(err)
	}
	if err := tree.Close(); err != nil {
		t.Fatal(err)
	}
	d.WaitGone(t, pid)
}
