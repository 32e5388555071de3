package sandbox

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// TestServerRefusesABadCommandAndServesTheNext: whoever reads the socket
// when a command comes (Serve's loop, or the ready init's thread, which
// reads its own command while it waits), a command the server cannot take
// is refused with a spec error, and the same server, its ready init and
// its reading role intact, runs the next commands.
func TestServerRefusesABadCommandAndServesTheNext(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	mustRunWW(t, run, f, "true")
	before := serverPIDs(s)
	if len(before) != 1 {
		t.Fatalf("%d servers after one call, want 1", len(before))
	}
	s.mu.Lock()
	var sv *server
	for _, v := range s.byKey {
		sv = v
	}
	s.mu.Unlock()
	for i := range 3 {
		// No argv, and no descriptors for the streams.
		id, call, err := sv.send(proto.ServerCommand{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := waitStarted(sv, call)
		sv.forget(id)
		if err != nil {
			t.Fatalf("bad command %d: %v", i, err)
		}
		closeFDs(m.fds)
		if m.reply.Kind != proto.ServerSetupError || m.reply.Layer != "spec" {
			t.Fatalf("bad command %d: reply %+v, want a spec setup_error", i, m.reply)
		}
		out := mustRunWW(t, run, f, "sh", "-c", "echo ran")
		if strings.TrimSpace(out.Stdout) != "ran" {
			t.Fatalf("after bad command %d: stdout %q, stderr %q", i, out.Stdout, out.Stderr)
		}
	}
	if after := serverPIDs(s); len(after) != 1 || after[0] != before[0] {
		t.Fatalf("servers %v after the bad commands, want the same one %v", after, before)
	}
}
