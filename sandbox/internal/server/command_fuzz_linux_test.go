package server

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/initc"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/internal/wire"
)

// fuzzSession is a server's session spec as docket's serverBase builds it.
func fuzzSession() proto.Spec {
	return proto.Spec{V: proto.Version, Seccomp: make([]byte, proto.SockFilterSize), Mode: events.SandboxWorkspaceWrite,
		Writable: []string{"/w"}, Server: true, NS: proto.Namespaces{User: true, Mount: true, Net: true, IPC: true, UTS: true}}
}

// FuzzCommand sends any bytes, with any number of descriptors, as one
// datagram on the server's socket, and has the server read it as it reads
// docket's commands (wire.Recv, then commandSpec). A command is refused
// with an error naming it, or is one the init can be given: a valid spec
// for one command, argv and environment without NUL bytes, exactly the
// descriptors its cgroup count says, encodable for the init.
func FuzzCommand(f *testing.F) {
	f.Add([]byte(`{"id":1,"cwd":"/w","path":"/bin/true","argv":["true"],"env":["A=b"],"limits":{}}`), uint8(4))
	f.Add([]byte(`{"id":2,"cwd":"/w","path":"/bin/true","protected":["/w/.git"],"scanned":["/w/.git"],"argv":["true"],"cgroups":1,"limits":{"cpu_seconds":5}}`), uint8(5))
	f.Add([]byte(`{"id":3,"cwd":"/w","path":"/bin/true","argv":["a\u0000b"]}`), uint8(4))
	f.Add([]byte(`{"id":4,"cwd":"/w/../etc","path":"/bin/true","argv":["x"]}`), uint8(4))
	f.Add([]byte(`{"id":5,"cwd":"/w","path":"/bin/true","argv":["x"],"cgroups":-1}`), uint8(3))
	f.Add([]byte(`{"id":6,"cwd":"/w","path":"/bin/true","argv":[],"unseen":["/etc"]}`), uint8(4))
	f.Add([]byte(`[`), uint8(0))
	session := fuzzSession()
	f.Fuzz(func(t *testing.T, msg []byte, nfds uint8) {
		if len(msg) == 0 {
			return // an empty datagram is docket gone, not a command
		}
		n := int(nfds % (wire.MaxFDs + 1))
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(pair[0])
		defer unix.Close(pair[1])
		null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(null)
		var oob []byte
		if n > 0 {
			fds := make([]int, n)
			for i := range fds {
				fds[i] = null
			}
			oob = unix.UnixRights(fds...)
		}
		if err := unix.Sendmsg(pair[0], msg, oob, nil, 0); err != nil {
			t.Skip(err) // larger than the socket takes
		}
		sv := &serverState{spec: session, sock: pair[1]}
		cmd, got, err := sv.recv(&readRole{buf: make([]byte, wire.MaxMessage), oob: make([]byte, wire.OOBSpace())})
		if err != nil {
			if len(got) != 0 {
				t.Fatalf("a refused datagram kept %d descriptors", len(got))
			}
			// docket hears why, as a setup error of the server's.
			var r proto.ServerReply
			if _, rerr := wire.Recv(pair[0], make([]byte, 64<<10), make([]byte, wire.OOBSpace()), &r); rerr != nil ||
				r.Kind != proto.ServerSetupError || r.Layer != "server" || r.Error == "" {
				t.Fatalf("refused %v; docket heard %+v (%v)", err, r, rerr)
			}
			return
		}
		defer closeFDs(got)
		if len(got) != n {
			t.Fatalf("sent %d descriptors, received %d", n, len(got))
		}
		spec, err := sv.commandSpec(cmd, len(got))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("a refusal without a reason")
			}
			return
		}
		if err := spec.Validate(); err != nil {
			t.Fatalf("accepted a command whose spec is invalid: %v", err)
		}
		if spec.Server || !spec.NS.PID {
			t.Fatalf("a command's spec is not one command's: %+v", spec.NS)
		}
		if len(cmd.Argv) == 0 || cmd.Cgroups < 0 || len(got) != 4+cmd.Cgroups {
			t.Fatalf("accepted argv %q with %d descriptors for %d cgroup files", cmd.Argv, len(got), cmd.Cgroups)
		}
		for _, s := range append(append([]string{spec.Path, spec.Cwd}, cmd.Argv...), cmd.Env...) {
			if strings.IndexByte(s, 0) >= 0 {
				t.Fatalf("accepted a NUL byte in %q", s)
			}
		}
		for _, p := range spec.Protected {
			if !events.WithinAny(p, spec.Writable) {
				t.Fatalf("would bind %q read-only outside the roots", p)
			}
		}
		if _, err := initc.Encode(initc.Command{Path: spec.Path, Cwd: spec.Cwd, Argv: cmd.Argv, Env: cmd.Env,
			NCgroup: cmd.Cgroups, Rlimits: commandRlimits(spec)}); err != nil && !strings.Contains(err.Error(), "sandbox init") {
			t.Fatalf("encoding for the init: %v", err)
		}
	})
}
