package sandbox

import (
	"bytes"
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/internal/wire"
)

// FuzzServerReplies plays a sandbox server that says anything: the
// datagrams (one per line; a line starting with '!' carries a
// descriptor) go to docket's reply reader, then the server hangs up.
// The reader routes a reply only to the call it names, and only as a
// reply of its kind; it keeps no descriptor it did not route (a pipe's
// write end sent with each datagram reaches EOF once the routed ones are
// closed); and it ends with the server marked dead, saying why.
func FuzzServerReplies(f *testing.F) {
	f.Add([]byte("!{\"kind\":\"started\",\"id\":1,\"layers\":[\"seccomp\"]}\n{\"kind\":\"done\",\"id\":1,\"status\":0}"))
	f.Add([]byte("{\"kind\":\"setup_error\",\"id\":2,\"layer\":\"spec\",\"error\":\"x\"}\n!{\"kind\":\"started\",\"id\":2}"))
	f.Add([]byte("!{\"kind\":\"started\",\"id\":7}\n!{\"kind\":\"ready\",\"id\":1}\n!{\"kind\":\"done\",\"id\":1}\n!{\"kind\":\"done\",\"id\":1}"))
	f.Add([]byte("!{\"kind\":\"started\",\"id\":1,\"layers\":{}}\n!{\"kind\":\"started\",\"id\":1}"))
	f.Add([]byte("!\n{\"kind\":\"done\",\"id\":-1}\n[1,2]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(pair[0])
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
			t.Fatal(err)
		}
		defer unix.Close(p[0])
		calls := map[uint64]*serverCall{}
		for id := uint64(1); id <= 2; id++ {
			calls[id] = &serverCall{started: make(chan serverMessage, 1), done: make(chan serverMessage, 1)}
		}
		sv := &server{sock: pair[1], dead: make(chan struct{}), calls: map[uint64]*serverCall{}}
		for id, c := range calls {
			sv.calls[id] = c
		}
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			sv.read(make([]byte, 64<<10), make([]byte, wire.OOBSpace()))
		}()
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			var oob []byte
			if msg, ok := bytes.CutPrefix(line, []byte{'!'}); ok {
				line, oob = msg, unix.UnixRights(p[1])
			}
			if len(line) == 0 {
				continue // an empty datagram is the server gone: the hang-up below says it
			}
			if err := unix.Sendmsg(pair[0], line, oob, nil, unix.MSG_DONTWAIT); err != nil {
				break // the reader stopped at a bad reply and the queue is full
			}
		}
		_ = unix.Shutdown(pair[0], unix.SHUT_WR)
		<-finished
		_ = unix.Close(pair[1])
		if sv.alive() || sv.deadErr() == nil {
			t.Fatal("the reader returned with the server still alive")
		}
		for id, c := range calls {
			for want, ch := range map[string]chan serverMessage{"started": c.started, "done": c.done} {
				select {
				case m := <-ch:
					for _, fd := range m.fds {
						_ = unix.Close(fd)
					}
					ok := m.reply.Kind == proto.ServerDone
					if want == "started" {
						ok = m.reply.Kind == proto.ServerStarted || m.reply.Kind == proto.ServerSetupError
					}
					if m.reply.ID != id || !ok {
						t.Fatalf("call %d got %+v as its %s reply", id, m.reply, want)
					}
				default:
				}
			}
		}
		_ = unix.Close(p[1])
		var b [1]byte
		if _, err := unix.Read(p[0], b[:]); errors.Is(err, unix.EAGAIN) {
			t.Fatal("a descriptor the server sent is still open: the reader kept one it did not route")
		} else if err != nil {
			t.Fatal(err)
		}
	})
}
