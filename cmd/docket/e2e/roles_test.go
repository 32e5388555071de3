//go:build linux

package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// roleEnv makes this test binary play a part in a test instead of running
// tests: a caller that confines itself before it execs docket, or an
// attacker's or a victim's program inside or outside a sandbox. The part
// is chosen before any test runs (init), so that the binary needs no
// flags; roles_test.go's functions are the parts.
const roleEnv = "DOCKET_E2E_ROLE"

// The "caller" role, and its settings. It has a variable of its own: the
// program it execs may be this binary in another role.
const (
	callerEnv = "DOCKET_E2E_AS_CALLER"
	// landlockEnv lists (":"-separated) the only directories the caller
	// may write beneath once its own Landlock domain is in force.
	landlockEnv = "DOCKET_E2E_LANDLOCK_RW"
	// cgroupEnv names the cgroup.procs file the caller joins.
	cgroupEnv = "DOCKET_E2E_CGROUP_PROCS"
)

func init() {
	role := os.Getenv(roleEnv)
	if os.Getenv(callerEnv) != "" {
		role = "caller"
	}
	if role == "" {
		return
	}
	var err error
	switch role {
	case "caller":
		err = callerRole(os.Args[1:])
	case "listen":
		err = listenRole(os.Args[1], os.Args[2], os.Args[3:])
	case "connect":
		err = connectRole(os.Args[1])
	case "fork":
		err = forkRole(os.Args[1])
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e role %s: %v\n", role, err)
		os.Exit(97)
	}
	os.Exit(0)
}

// roleCmd is this test binary playing role with args: its argv and the
// variable that sets the role.
func roleCmd(role string, args ...string) (argv []string, env string) {
	exe, err := os.Executable()
	if err != nil {
		panic(err) // the test binary runs: it has a path
	}
	if role == "caller" {
		return append([]string{exe}, args...), callerEnv + "=1"
	}
	return append([]string{exe}, args...), roleEnv + "=" + role
}

// callerRole confines this process as a caller may have confined itself
// (its own Landlock domain, a pids cgroup), then execs argv: the role's
// variables are not passed on.
func callerRole(argv []string) error {
	// The domain is the calling thread's; exec from that same thread.
	runtime.LockOSThread()
	if p := os.Getenv(cgroupEnv); p != "" {
		if err := os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			return fmt.Errorf("join the cgroup: %w", err)
		}
	}
	if dirs := os.Getenv(landlockEnv); dirs != "" {
		if err := landlockWritesBeneath(strings.Split(dirs, ":")); err != nil {
			return err
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, callerEnv+"=") && !strings.HasPrefix(kv, landlockEnv+"=") && !strings.HasPrefix(kv, cgroupEnv+"=") {
			env = append(env, kv)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return unix.Exec(path, argv, env)
}

// landlockWritesBeneath puts the calling thread in a Landlock domain that
// allows writes only beneath dirs. It sets no no_new_privs: root may do
// without (CAP_SYS_ADMIN), and a caller that does is the one the removed
// daemon could not tell from an unconfined one.
func landlockWritesBeneath(dirs []string) error {
	const write = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	attr := struct{ fs, net, scoped uint64 }{fs: write}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, d := range dirs {
		dfd, err := unix.Open(d, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("landlock rule for %s: %w", d, err)
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: write, Parent_fd: int32(dfd)}
		_, _, errno = unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		unix.Close(dfd)
		if errno != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", d, errno)
		}
	}
	if _, _, errno = unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// listenRole is an attacker's command that listens where the removed
// sandbox daemon did: the daemon's directory dir (moved aside if it is
// there, and made again), a SOCK_SEQPACKET socket for every socket name
// found in it and under guessed names. Whatever a caller sends (the
// removed front sent its whole environment and its stdout and stderr) is
// appended to capture, "attacker" is written into every descriptor
// received, and the reply says the command exited 0. ready is created
// once it listens; it serves until killed.
func listenRole(capture, ready string, dirs []string) error {
	var listeners []int
	for _, dir := range dirs {
		names := map[string]bool{"sandbox.sock": true}
		if old, err := filepath.Glob(filepath.Join(dir, "*.sock")); err == nil && len(old) > 0 {
			for _, s := range old {
				names[filepath.Base(s)] = true
			}
			if err := os.Rename(dir, dir+".moved"); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		for n := range names {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET, 0)
			if err != nil {
				return err
			}
			p := filepath.Join(dir, n)
			_ = os.Remove(p)
			if err := unix.Bind(fd, &unix.SockaddrUnix{Name: p}); err != nil {
				return fmt.Errorf("bind %s: %w", p, err)
			}
			if err := unix.Listen(fd, 16); err != nil {
				return err
			}
			listeners = append(listeners, fd)
		}
	}
	if err := os.WriteFile(ready, nil, 0o600); err != nil {
		return err
	}
	for _, l := range listeners {
		go serveAttack(l, capture)
	}
	select {}
}

func serveAttack(l int, capture string) {
	for {
		c, _, err := unix.Accept(l)
		if err != nil {
			return
		}
		buf := make([]byte, 1<<20)
		oob := make([]byte, unix.CmsgSpace(16*4))
		n, oobn, _, _, err := unix.Recvmsg(c, buf, oob, 0)
		if err == nil {
			f, _ := os.OpenFile(capture, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if f != nil {
				_, _ = f.Write(append(buf[:n], '\n'))
				_ = f.Close()
			}
			msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
			for _, m := range msgs {
				fds, _ := unix.ParseUnixRights(&m)
				for _, fd := range fds {
					_, _ = unix.Write(fd, []byte("attacker\n"))
					unix.Close(fd)
				}
			}
			_, _ = unix.Write(c, []byte(`{"code":0}`))
		}
		unix.Close(c)
	}
}

// connectRole says whether a TCP connection to addr opens.
func connectRole(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		fmt.Println("not connected:", err)
		return nil
	}
	_ = c.Close()
	fmt.Println("connected")
	return nil
}

// forkRole starts up to n `sleep 60` processes at once and prints how many
// started, then stops them.
func forkRole(n string) error {
	want, err := strconv.Atoi(n)
	if err != nil {
		return err
	}
	var started []*exec.Cmd
	for i := 0; i < want; i++ {
		c := exec.Command("sleep", "60")
		if c.Start() != nil {
			break
		}
		started = append(started, c)
	}
	fmt.Println(len(started))
	for _, c := range started {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	return nil
}
