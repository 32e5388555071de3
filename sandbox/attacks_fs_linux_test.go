package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fsAttacks are the attacks (and must-work probes) of the file system view,
// socket and resource cases in escape_fs_linux_test.go.
func fsAttacks() map[string]func(args []string) int {
	return map[string]func(args []string) int{
		"openpty": func(a []string) int {
			// What openpty(3) does: open the multiplexer, unlock, find the
			// slave's name, open it, and talk through the pair.
			m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
			if err != nil {
				return fail("open /dev/ptmx: %v", err)
			}
			defer m.Close()
			if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
				return fail("unlockpt: %v", err)
			}
			n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
			if err != nil {
				return fail("ptsname: %v", err)
			}
			name := "/dev/pts/" + strconv.Itoa(n)
			s, err := os.OpenFile(name, os.O_RDWR|unix.O_NOCTTY, 0)
			if err != nil {
				return fail("open %s: %v", name, err)
			}
			defer s.Close()
			if _, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS); err != nil {
				return fail("tcgetattr %s: %v", name, err)
			}
			if _, err := s.WriteString("ping\n"); err != nil {
				return fail("write %s: %v", name, err)
			}
			buf := make([]byte, 64)
			k, err := m.Read(buf)
			if err != nil || !strings.Contains(string(buf[:k]), "ping") {
				return fail("read master: %q %v", buf[:k], err)
			}
			fmt.Println("pty", name)
			return 0
		},
		"pty-write": func(a []string) int {
			f, err := os.OpenFile(a[0], os.O_WRONLY|unix.O_NOCTTY, 0)
			if err != nil {
				return fail("%v", err)
			}
			defer f.Close()
			if _, err := f.WriteString("pwned\n"); err != nil {
				return fail("%v", err)
			}
			return 0
		},
		"replant": func(a []string) int {
			// Move a directory away, then plant a hook where it was.
			if err := os.Rename(a[0], a[1]); err != nil {
				return fail("rename: %v", err)
			}
			if err := os.MkdirAll(filepath.Dir(a[2]), 0o755); err != nil {
				return fail("%v", err)
			}
			return attackWrite(a[2:])
		},
		"unix-connect": func(a []string) int { return attackSayHello("unix", a[0]) },
		"socketpair": func(a []string) int {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				return fail("socketpair: %v", err)
			}
			defer unix.Close(fds[0])
			defer unix.Close(fds[1])
			if _, err := unix.Write(fds[0], []byte("x")); err != nil {
				return fail("write: %v", err)
			}
			b := make([]byte, 1)
			if n, err := unix.Read(fds[1], b); err != nil || n != 1 {
				return fail("read: %v", err)
			}
			return 0
		},
		"getenv": func(a []string) int {
			v, ok := os.LookupEnv(a[0])
			if !ok {
				return fail("%s is not set", a[0])
			}
			fmt.Println(a[0] + "=" + v)
			return 0
		},
		"fork-many": func(a []string) int {
			// Start up to N sleeping children, stop at the first failure,
			// and report how many ran at once. Bounded on purpose: this is
			// a fork bomb that cannot hurt the machine unsandboxed.
			n, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			sleep, err := exec.LookPath("sleep")
			if err != nil {
				return 2
			}
			var pids []int
			defer func() {
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
					var ws syscall.WaitStatus
					syscall.Wait4(p, &ws, 0, nil)
				}
			}()
			var ferr error
			for len(pids) < n {
				pid, err := syscall.ForkExec(sleep, []string{"sleep", "600"}, &syscall.ProcAttr{})
				if err != nil {
					ferr = err
					break
				}
				pids = append(pids, pid)
			}
			fmt.Printf("children %d\n", len(pids))
			if ferr != nil {
				return fail("fork after %d children: %v", len(pids), ferr)
			}
			return 0
		},
		"alloc": func(a []string) int {
			// Allocate and touch a[0] MiB, then exit.
			n, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			var keep [][]byte
			for i := 0; i < n; i++ {
				b := make([]byte, 1<<20)
				for j := 0; j < len(b); j += 4096 {
					b[j] = 1
				}
				keep = append(keep, b)
			}
			fmt.Printf("allocated %d MiB\n", len(keep))
			return 0
		},
		"bigfile": func(a []string) int {
			n, err := strconv.Atoi(a[1])
			if err != nil {
				return 2
			}
			f, err := os.Create(a[0])
			if err != nil {
				return fail("%v", err)
			}
			defer f.Close()
			chunk := make([]byte, 64<<10)
			for i := 0; i < n*16; i++ {
				if _, err := f.Write(chunk); err != nil {
					return fail("write %s: %v", a[0], err)
				}
			}
			return 0
		},
		"threads": func(a []string) int {
			// Hold a[0] OS threads at once.
			n, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			var ready sync.WaitGroup
			release := make(chan struct{})
			for i := 0; i < n; i++ {
				ready.Add(1)
				go func() {
					runtime.LockOSThread()
					ready.Done()
					<-release
				}()
			}
			ready.Wait()
			b, err := os.ReadFile("/proc/self/status")
			close(release)
			if err != nil {
				return fail("%v", err)
			}
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "Threads:"); ok {
					fmt.Println("threads", strings.TrimSpace(v))
				}
			}
			return 0
		},
		"spin": func(a []string) int {
			// Burn a[0] seconds of CPU time, then exit.
			n, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			for x := 0; ; x++ {
				if x%(1<<20) == 0 {
					var ru unix.Rusage
					unix.Getrusage(unix.RUSAGE_SELF, &ru)
					if time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= time.Duration(n)*time.Second {
						return 0
					}
				}
			}
		},
	}
}
