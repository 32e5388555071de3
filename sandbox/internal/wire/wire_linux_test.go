package wire

import (
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

type msg struct {
	Kind string `json:"kind"`
	N    int    `json:"n"`
}

func pair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fds[0]); _ = unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func TestSendRecv(t *testing.T) {
	buf, oob := make([]byte, MaxMessage), make([]byte, OOBSpace())
	t.Run("a message and a descriptor arrive, the descriptor close-on-exec", func(t *testing.T) {
		a, b := pair(t)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		if err := Send(a, msg{Kind: "started", N: 7}, int(w.Fd())); err != nil {
			t.Fatal(err)
		}
		var got msg
		fds, err := Recv(b, buf, oob, &got)
		if err != nil || got != (msg{Kind: "started", N: 7}) || len(fds) != 1 {
			t.Fatalf("Recv = %+v, %v, %v", got, fds, err)
		}
		defer unix.Close(fds[0])
		flags, err := unix.FcntlInt(uintptr(fds[0]), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC == 0 {
			t.Errorf("received descriptor flags %#x, %v: want close-on-exec", flags, err)
		}
		if _, err := unix.Write(fds[0], []byte("x")); err != nil {
			t.Fatal(err)
		}
		one := make([]byte, 1)
		if n, err := r.Read(one); n != 1 || err != nil || one[0] != 'x' {
			t.Errorf("the received descriptor is not the pipe sent: %d %v %q", n, err, one)
		}
	})
	t.Run("the peer gone is ErrPeerGone", func(t *testing.T) {
		a, b := pair(t)
		_ = unix.Shutdown(a, unix.SHUT_WR)
		var got msg
		if _, err := Recv(b, buf, oob, &got); !errors.Is(err, ErrPeerGone) {
			t.Errorf("Recv after the peer shut down = %v, want ErrPeerGone", err)
		}
	})
	t.Run("a message that is not the JSON expected is an error naming it", func(t *testing.T) {
		a, b := pair(t)
		if _, err := unix.Write(a, []byte(`{"kind": 3}`)); err != nil {
			t.Fatal(err)
		}
		var got msg
		if _, err := Recv(b, buf, oob, &got); err == nil || !strings.Contains(err.Error(), "message") {
			t.Errorf("Recv of bad JSON = %v, want a message error", err)
		}
	})
	t.Run("a datagram larger than the buffer is refused, not cut", func(t *testing.T) {
		a, b := pair(t)
		if err := Send(a, msg{Kind: strings.Repeat("k", 200)}); err != nil {
			t.Fatal(err)
		}
		var got msg
		if _, err := Recv(b, make([]byte, 64), oob, &got); err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("Recv into a short buffer = %v, want truncated", err)
		}
	})
}

// FuzzRecv sends whatever bytes as one datagram: Recv decodes or refuses,
// and never panics.
func FuzzRecv(f *testing.F) {
	f.Add([]byte(`{"kind":"ready"}`))
	f.Add([]byte(`{"kind":"started","n":1}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return // an empty datagram reads as the peer gone
		}
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if _, err := unix.Write(fds[0], b); err != nil {
			t.Skip(err)
		}
		var got msg
		_, _ = Recv(fds[1], make([]byte, 4096), make([]byte, OOBSpace()), &got)
	})
}
