package agentcli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/sandbox/proctree"
	"github.com/docket-engine/docket/sandbox/proctree/proctreetest"
)

// TestRespondKillsASetsidDaemon: a daemon the agent CLI starts with setsid
// (so outside its process group, holding its stdout) dies when the CLI
// answers, at the deadline and when the request is cancelled, and the
// answer does not wait for it. The first case is the attack without the
// fix: with the process group alone the daemon survives, and the request
// hangs on its stdout until WaitDelay.
func TestRespondKillsASetsidDaemon(t *testing.T) {
	probe := proctree.New(proctree.Options{})
	mech := probe.Mechanism()
	if err := probe.Close(); err != nil {
		t.Fatal(err)
	}
	groupOnly := proctree.Options{Without: []proctree.Mechanism{proctree.CgroupV2, proctree.CgroupV1}}
	for _, tc := range []struct {
		name      string
		groupOnly bool
		stay      bool          // the CLI sleeps after starting the daemon
		timeout   time.Duration // the request's deadline
		cancel    bool          // the request is cancelled once the daemon runs
		err       string        // what the error says; "" for an answer
		survives  bool
	}{
		{name: "process group only: the daemon survives the answer", groupOnly: true, timeout: time.Minute,
			err: exec.ErrWaitDelay.Error(), survives: true},
		{name: "the CLI answers", timeout: time.Minute},
		{name: "the deadline", stay: true, timeout: 2 * time.Second, err: "every process in its cgroup was killed (" + string(mech) + ")"},
		{name: "the request is cancelled", stay: true, timeout: time.Minute, cancel: true, err: context.Canceled.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.survives && mech == proctree.ProcessGroup {
				t.Skip("no cgroup docket may use on this machine: the process group is all there is")
			}
			d := proctreetest.NewDaemon(t)
			p := &Provider{Name: "a", Command: script(t, d.Script(tc.stay)), Dir: t.TempDir(), Timeout: tc.timeout, Format: "text"}
			if tc.groupOnly {
				p.tree = groupOnly
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				go func() {
					for range 1000 {
						if _, err := os.Stat(d.PidFile); err == nil {
							break
						}
						time.Sleep(10 * time.Millisecond)
					}
					cancel()
				}()
			}
			resp, err := p.Respond(ctx, user("q"), nil)
			pid := d.Pid(t)
			defer d.Kill(pid)
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err == "" && (len(resp.Items) != 1 || resp.Items[0].Text != "started"):
				t.Errorf("response %+v, want the answer %q", resp, "started")
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one saying %q", err, tc.err)
			}
			if errors.Is(err, exec.ErrWaitDelay) && !tc.survives {
				t.Errorf("the request waited for the daemon's stdout: %v", err)
			}
			if tc.survives {
				if !d.Alive(pid) {
					t.Fatalf("daemon %d died with the process group: the attack does not work here, so the other cases prove nothing", pid)
				}
				return
			}
			d.WaitGone(t, pid)
		})
	}
}
