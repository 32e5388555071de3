package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Probe inspects the kernel: Landlock ABI, seccomp (compiling the two
// filters, which it keeps for Run), and whether user namespaces look
// available. It costs a few syscalls and file reads.
func Probe() Capabilities {
	c := Capabilities{OS: runtime.GOOS, Root: os.Geteuid() == 0, binaries: &binaryCache{}}
	if abi, err := ll.LandlockGetABIVersion(); err == nil && abi > 0 {
		c.LandlockABI = abi
	} else {
		c.Notes = append(c.Notes, fmt.Sprintf("landlock: not available (%v)", err))
	}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		c.Notes = append(c.Notes, fmt.Sprintf("seccomp: prctl(PR_GET_SECCOMP): %v", err))
	} else if off, err := buildSeccompFilter(false); err != nil {
		c.Notes = append(c.Notes, fmt.Sprintf("seccomp: %v", err))
	} else if on, err := buildSeccompFilter(true); err != nil {
		c.Notes = append(c.Notes, fmt.Sprintf("seccomp: %v", err))
	} else {
		c.Seccomp = true
		c.filterNetOff, c.filterNetOn = off, on
	}
	c.UserNamespaces, c.Notes = probeUserNS(c.Root, c.Notes)
	return c
}

// probeUserNS reads the sysctls that commonly forbid user namespaces.
func probeUserNS(root bool, notes []string) (bool, []string) {
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		return false, append(notes, "userns: kernel without user namespaces")
	}
	if n, ok := readSysctlInt("/proc/sys/user/max_user_namespaces"); ok && n == 0 {
		return false, append(notes, "userns: user.max_user_namespaces = 0")
	}
	if root {
		return true, notes
	}
	if n, ok := readSysctlInt("/proc/sys/kernel/unprivileged_userns_clone"); ok && n == 0 {
		return false, append(notes, "userns: kernel.unprivileged_userns_clone = 0")
	}
	if n, ok := readSysctlInt("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); ok && n != 0 {
		return false, append(notes, "userns: kernel.apparmor_restrict_unprivileged_userns = 1")
	}
	return true, notes
}

func readSysctlInt(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil
}
