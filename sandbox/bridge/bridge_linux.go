package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Port is where a sandboxed command finds the proxy: 127.0.0.1 of
// its own, otherwise empty, network namespace. Any port is free there; a
// fixed one lets the command's environment be written before the listener
// exists.
const Port = 3128

// Env is the environment that points a command's HTTP clients at the
// bridge, in both spellings tools read. ALL_PROXY uses socks5h so names
// (not addresses) reach the proxy. NO_PROXY is cleared: a command that sets
// it again only loses its way out, the namespace has no other.
func Env() []string {
	u := fmt.Sprintf("http://127.0.0.1:%d", Port)
	s := fmt.Sprintf("socks5h://127.0.0.1:%d", Port)
	return []string{
		"HTTP_PROXY=" + u, "http_proxy=" + u, "HTTPS_PROXY=" + u, "https_proxy=" + u,
		"ALL_PROXY=" + s, "all_proxy=" + s, "NO_PROXY=", "no_proxy=",
	}
}

// ListenLoopbackHere brings the loopback interface of the calling
// thread's network namespace up and listens on 127.0.0.1:port there. It is
// what runs inside the sandbox's namespace (the helper, before it starts
// the command) or on a thread that entered it (ListenIn); the socket stays
// in that namespace whichever thread later accepts on it.
func ListenLoopbackHere(port int) (*os.File, error) {
	if err := loopbackUp(); err != nil {
		return nil, err
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("bridge: socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), "egress-bridge")
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("bridge: bind 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("bridge: listen: %w", err)
	}
	return f, nil
}

// loopbackUp sets IFF_UP on lo: a new network namespace has it down.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bridge: socket: %w", err)
	}
	defer func() { _ = unix.Close(fd) }()
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bridge: lo flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bridge: bringing lo up: %w", err)
	}
	return nil
}

// ListenIn enters the network namespace at nsPath (/proc/PID/ns/net) on a
// locked thread, listens on its 127.0.0.1:port and comes back: the proxy
// then serves the command's namespace from docket's own process, with no
// process added inside. Entering needs CAP_SYS_ADMIN over both namespaces,
// so only root can; others get the listener from inside (SendListener).
// If the thread cannot come back it is never unlocked, so the Go runtime
// ends it rather than reuse it in the wrong namespace.
func ListenIn(nsPath string, port int) (net.Listener, error) {
	target, err := os.Open(nsPath)
	if err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	defer func() { _ = target.Close() }()
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
		if err != nil {
			runtime.UnlockOSThread()
			done <- result{err: fmt.Errorf("bridge: %w", err)}
			return
		}
		defer func() { _ = home.Close() }()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- result{err: fmt.Errorf("bridge: entering %s: %w", nsPath, err)}
			return
		}
		f, lerr := ListenLoopbackHere(port)
		if err := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); err != nil {
			// Stay locked: the thread dies with this goroutine.
			if f != nil {
				_ = f.Close()
			}
			done <- result{err: fmt.Errorf("bridge: leaving %s: %w", nsPath, err)}
			return
		}
		runtime.UnlockOSThread()
		done <- result{f: f, err: lerr}
	}()
	r := <-done
	if r.err != nil {
		return nil, r.err
	}
	defer func() { _ = r.f.Close() }()
	return net.FileListener(r.f)
}

// SendListener passes a listening socket over a unix connection: the
// helper, inside the namespace, hands docket the bridge's listener.
func SendListener(uc *net.UnixConn, f *os.File) error {
	_, _, err := uc.WriteMsgUnix([]byte{'L'}, unix.UnixRights(int(f.Fd())), nil)
	if err != nil {
		return fmt.Errorf("bridge: sending the listener: %w", err)
	}
	return nil
}

// ReceiveListener takes the listener SendListener passed. Exactly one
// descriptor, a listening TCP socket, is accepted; anything else is
// closed and refused. It waits until the listener comes, the other end
// closes, or ctx ends (the error then wraps ctx's cause).
func ReceiveListener(ctx context.Context, uc *net.UnixConn) (net.Listener, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4*4))
	// A helper that neither sends nor exits would hold the read forever:
	// the end of ctx (the call's run) ends the wait.
	stop := context.AfterFunc(ctx, func() { _ = uc.SetReadDeadline(time.Unix(1, 0)) })
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("bridge: receiving the listener: %w", context.Cause(ctx))
		}
		return nil, fmt.Errorf("bridge: receiving the listener: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err == nil {
			fds = append(fds, got...)
		}
	}
	if n != 1 || buf[0] != 'L' || len(fds) != 1 {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
		return nil, errors.New("bridge: expected one listening socket")
	}
	f := os.NewFile(uintptr(fds[0]), "egress-bridge")
	defer func() { _ = f.Close() }()
	if v, err := unix.GetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || v != 1 {
		return nil, errors.New("bridge: the descriptor passed is not a listening socket")
	}
	return net.FileListener(f)
}
