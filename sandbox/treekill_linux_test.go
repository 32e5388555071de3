package sandbox

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/proctree"
	"github.com/docket-engine/docket/sandbox/proctree/proctreetest"
)

// groupOnly leaves an unsandboxed command its process group as the only
// way to find its processes: what docket did before proctree.
var groupOnly = proctree.Options{Without: []proctree.Mechanism{proctree.CgroupV2, proctree.CgroupV1}}

// TestUnsandboxedCallKillsASetsidDaemon: a daemon that an unsandboxed
// command starts with setsid (so outside its process group) dies when the
// command exits, times out or is cancelled. The first case is the attack
// without the fix: with the process group alone the daemon survives.
func TestUnsandboxedCallKillsASetsidDaemon(t *testing.T) {
	// What this machine gives; the run must report the same.
	probe := proctree.New(proctree.Options{})
	mech := probe.Mechanism()
	if err := probe.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		groupOnly bool
		stay      bool          // the command sleeps after starting the daemon
		timeout   time.Duration // 0: cancelled once it has printed "started"
		survives  bool
	}{
		{name: "process group only: the daemon survives the exit", groupOnly: true, timeout: time.Minute, survives: true},
		{name: "the command exits", timeout: time.Minute},
		{name: "the command times out", stay: true, timeout: 3 * time.Second},
		{name: "the call is cancelled", stay: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := proctreetest.NewDaemon(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			req := Request{
				Argv: []string{"sh", "-c", d.Script(tc.stay)}, Cwd: t.TempDir(),
				Plan: events.SandboxPlan{Mode: ModeNone}, Timeout: tc.timeout, KillGrace: 500 * time.Millisecond,
				OnOutput: func(_ string, b []byte) {
					if tc.timeout == 0 && strings.Contains(string(b), "started") {
						once.Do(cancel)
					}
				},
			}
			if tc.groupOnly {
				req.tree = groupOnly
			}
			out, err := Run(ctx, req)
			pid := d.Pid(t)
			defer d.Kill(pid)
			switch {
			case tc.timeout == 0 && err == nil:
				t.Errorf("a cancelled run returned no error: %+v", out)
			case tc.timeout != 0 && err != nil:
				t.Fatal(err)
			case tc.stay && tc.timeout != 0 && !out.TimedOut:
				t.Errorf("TimedOut = false: %+v", out)
			case !tc.stay && out.ExitCode != 0:
				t.Errorf("exit %d: %q", out.ExitCode, out.Output)
			}
			if tc.survives {
				if !slices.Contains(out.Layers, proctree.ProcessGroup.Layer()) {
					t.Errorf("layers %v, want %s", out.Layers, proctree.ProcessGroup.Layer())
				}
				if !d.Alive(pid) {
					t.Fatalf("daemon %d died with the process group: the attack does not work here, so the other cases prove nothing", pid)
				}
				return
			}
			if mech == proctree.ProcessGroup {
				t.Skip("no cgroup docket may use on this machine: the process group is all there is")
			}
			if !slices.Contains(out.Layers, mech.Layer()) {
				t.Errorf("layers %v, want %s", out.Layers, mech.Layer())
			}
			d.WaitGone(t, pid)
		})
	}
}

// The cost of the tree per unsandboxed call: BenchmarkRunTrueNone takes
// the strongest mechanism; these pin one each.
func benchmarkRunNoneTree(b *testing.B, opts proctree.Options, want proctree.Mechanism) {
	req := Request{Argv: []string{"true"}, Cwd: b.TempDir(), Plan: events.SandboxPlan{Mode: ModeNone}, tree: opts}
	for b.Loop() {
		out, err := Run(context.Background(), req)
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("exit %d: %v", out.ExitCode, err)
		}
		if !slices.Contains(out.Layers, want.Layer()) {
			b.Skipf("this machine gives %v, not %s", out.Layers, want)
		}
	}
}

func BenchmarkRunTrueNoneTreeCgroupV2(b *testing.B) {
	benchmarkRunNoneTree(b, proctree.Options{}, proctree.CgroupV2)
}

func BenchmarkRunTrueNoneTreeCgroupV1(b *testing.B) {
	benchmarkRunNoneTree(b, proctree.Options{Without: []proctree.Mechanism{proctree.CgroupV2}}, proctree.CgroupV1)
}

func BenchmarkRunTrueNoneTreeProcessGroup(b *testing.B) {
	benchmarkRunNoneTree(b, groupOnly, proctree.ProcessGroup)
}
