package sandbox

import (
	"bufio"
	"fmt"
	"maps"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

func attackWrite(a []string) int {
	if err := os.WriteFile(a[0], []byte("pwned\n"), 0o644); err != nil {
		return fail("%v", err)
	}
	return 0
}

func attackAppend(a []string) int {
	f, err := os.OpenFile(a[0], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fail("%v", err)
	}
	defer f.Close()
	if _, err := f.WriteString("pwned\n"); err != nil {
		return fail("%v", err)
	}
	return 0
}

// attackTable lists the attack programs: each tries one thing and exits 0
// when it worked, 1 when it was refused (printing the error), 2 on bad usage.
// attackSayHello connects to addr and writes one line.
func attackSayHello(network, addr string) int {
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		return fail("%v", err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("hello\n")); err != nil {
		return fail("%v", err)
	}
	return 0
}

func attackTable() map[string]func(args []string) int {
	m := map[string]func(args []string) int{
		"command-parent": commandParent, // lifeline_linux_test.go
		"gated-parent":   gatedParent,   // gate_linux_test.go
		"write":          attackWrite,
		"append":         attackAppend,
		"mkdir": func(a []string) int {
			if err := os.MkdirAll(a[0], 0o755); err != nil {
				return fail("%v", err)
			}
			return 0
		},
		"remove": func(a []string) int {
			if err := os.RemoveAll(a[0]); err != nil {
				return fail("%v", err)
			}
			if _, err := os.Lstat(a[0]); err == nil {
				return fail("%s still exists", a[0])
			}
			return 0
		},
		"rename": func(a []string) int {
			if err := os.Rename(a[0], a[1]); err != nil {
				return fail("%v", err)
			}
			return 0
		},
		"chmod": func(a []string) int {
			if err := os.Chmod(a[0], 0o777); err != nil {
				return fail("%v", err)
			}
			return 0
		},
		"symlink-write": func(a []string) int {
			if err := os.Symlink(a[0], a[1]); err != nil {
				return fail("symlink: %v", err)
			}
			return attackAppend(a[1:])
		},
		"hardlink-write": func(a []string) int {
			if err := os.Link(a[0], a[1]); err != nil {
				return fail("link: %v", err)
			}
			return attackAppend(a[1:])
		},
		"tcp-connect": func(a []string) int { return attackSayHello("tcp", a[0]) },
		"tcp-listen": func(a []string) int {
			l, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				return fail("%v", err)
			}
			l.Close()
			return 0
		},
		"udp-send": func(a []string) int {
			c, err := net.Dial("udp", a[0])
			if err != nil {
				return fail("%v", err)
			}
			defer c.Close()
			if _, err := c.Write([]byte("hello\n")); err != nil {
				return fail("%v", err)
			}
			return 0
		},
		"netlink": func(a []string) int {
			fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
			if err != nil {
				return fail("%v", err)
			}
			unix.Close(fd)
			return 0
		},
		"abstract-connect": func(a []string) int {
			c, err := net.Dial("unix", "@"+a[0])
			if err != nil {
				return fail("%v", err)
			}
			defer c.Close()
			if _, err := c.Write([]byte("hello\n")); err != nil {
				return fail("%v", err)
			}
			return 0
		},
		"unix-local": func(a []string) int {
			// A unix socket server and client inside the workspace.
			path := a[0]
			l, err := net.Listen("unix", path)
			if err != nil {
				return fail("listen: %v", err)
			}
			defer l.Close()
			go func() {
				if c, err := l.Accept(); err == nil {
					c.Write([]byte("pong\n"))
					c.Close()
				}
			}()
			c, err := net.Dial("unix", path)
			if err != nil {
				return fail("dial: %v", err)
			}
			defer c.Close()
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil || line != "pong\n" {
				return fail("read %q: %v", line, err)
			}
			return 0
		},
		"ptrace-attach": func(a []string) int {
			pid, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			if err := unix.PtraceAttach(pid); err != nil {
				return fail("ptrace attach %d: %v", pid, err)
			}
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WALL, nil)
			unix.PtraceDetach(pid)
			return 0
		},
		"ptrace-traceme": func(a []string) int {
			if _, _, errno := unix.RawSyscall(unix.SYS_PTRACE, unix.PTRACE_TRACEME, 0, 0); errno != 0 {
				return fail("ptrace(PTRACE_TRACEME): %v", errno)
			}
			return 0
		},
		"io-uring": func(a []string) int {
			var params [120]byte // struct io_uring_params
			fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
			if errno != 0 {
				return fail("io_uring_setup: %v", errno)
			}
			unix.Close(int(fd))
			return 0
		},
		"proc-mem": func(a []string) int {
			// Write a byte into another process's memory: a[0] is its pid,
			// a[1] the address of a buffer it watches.
			addr, err := strconv.ParseInt(a[1], 10, 64)
			if err != nil {
				return 2
			}
			f, err := os.OpenFile("/proc/"+a[0]+"/mem", os.O_RDWR, 0)
			if err != nil {
				return fail("%v", err)
			}
			defer f.Close()
			if _, err := f.WriteAt([]byte{0x42}, addr); err != nil {
				return fail("write: %v", err)
			}
			return 0
		},
		"landlock-widen": func(a []string) int {
			// A process may add its own Landlock ruleset; it must not gain rights.
			err := landlock.V1.RestrictPaths(landlock.RODirs("/"), landlock.RWDirs(a[0]), landlock.RWFiles("/dev/null"))
			if err != nil {
				return fail("landlock: %v", err)
			}
			return attackWrite([]string{a[0] + "/widened"})
		},
		"kill": func(a []string) int {
			pid, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			if err := unix.Kill(pid, unix.SIGTERM); err != nil {
				return fail("kill %d: %v", pid, err)
			}
			return 0
		},
		"mount": func(a []string) int {
			if err := unix.Mount("tmpfs", a[0], "tmpfs", 0, "size=1m"); err != nil {
				return fail("mount: %v", err)
			}
			unix.Unmount(a[0], unix.MNT_DETACH)
			return 0
		},
		"mknod": func(a []string) int {
			// A block device node for the first loop device: enough to
			// prove the right to make one, without touching a real disk.
			if err := unix.Mknod(a[0], unix.S_IFBLK|0o600, int(unix.Mkdev(7, 0))); err != nil {
				return fail("mknod: %v", err)
			}
			return 0
		},
		"sethostname": func(a []string) int {
			// The host's own name again: proves CAP_SYS_ADMIN over the
			// host's UTS namespace without changing anything.
			name, err := os.Hostname()
			if err != nil {
				return 2
			}
			if err := unix.Sethostname([]byte(name)); err != nil {
				return fail("sethostname: %v", err)
			}
			return 0
		},
		"sleeper": func(a []string) int {
			time.Sleep(time.Hour)
			return 0
		},
		"daemon": func(a []string) int {
			// Leave a process behind that is in no process group of ours.
			if err := startDaemon(a[0]); err != nil {
				return fail("%v", err)
			}
			if len(a) > 1 && a[1] == "stay" {
				time.Sleep(time.Hour)
			}
			return 0
		},
		"read": func(a []string) int {
			b, err := os.ReadFile(a[0])
			if err != nil {
				return fail("%v", err)
			}
			os.Stdout.Write(b)
			return 0
		},
		"devnull": func(a []string) int {
			f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
			if err != nil {
				return fail("%v", err)
			}
			defer f.Close()
			if _, err := f.WriteString("x"); err != nil {
				return fail("%v", err)
			}
			return 0
		},
	}
	// Attack sets of other files, one line each.
	maps.Copy(m, fsAttacks())
	maps.Copy(m, processAttacks())
	return m
}

func runAttack(name string, args []string) int {
	f, ok := attackTable()[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown attack %q\n", name)
		return 2
	}
	return f(args)
}

// startDaemon starts "sleeper token" in a new session with no inherited fds.
func startDaemon(token string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	_, err = syscall.ForkExec(exe, []string{exe, attackArg, "sleeper", token}, &syscall.ProcAttr{
		Files: []uintptr{null.Fd(), null.Fd(), null.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	return err
}
