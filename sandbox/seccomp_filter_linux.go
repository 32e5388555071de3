//go:build linux && cgo

package sandbox

import (
	"fmt"
	"io"
	"os"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM in every sandboxed run. The first group
// and the last two are what DESIGN.md requires; the rest are system-wide operations no sandboxed
// build or test needs, denied as a second line behind capabilities and
// Landlock (which matters when docket runs as root without a user namespace).
var deniedSyscalls = [...]string{
	// Debugging other processes, and io_uring, whose operations bypass
	// seccomp (it could open sockets the filter below refuses).
	"ptrace", "io_uring_setup", "io_uring_enter", "io_uring_register",
	// Changing the mount table or joining other namespaces.
	"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
	"fsconfig", "fsmount", "fspick", "mount_setattr", "setns",
	// Kernel-wide state.
	"kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "reboot", "swapon", "swapoff", "acct",
	"settimeofday", "clock_settime", "clock_adjtime",
	// Kernel keyrings are shared by every process of the user.
	"keyctl", "add_key", "request_key",
	// Large kernel attack surface with no use in a sandboxed command.
	"bpf", "perf_event_open", "userfaultfd",
	// Opening files by handle bypasses every path check (mounts, Landlock):
	// the 2014 "Shocker" escape. Capabilities stop it too; this is the
	// second line.
	"open_by_handle_at", "name_to_handle_at",
	// Reaching into another process: its descriptors, its memory, or
	// comparing its kernel objects. Non-dumpability of the helper and
	// Landlock's ptrace scoping stop these too. pidfd_open stays allowed
	// (runtimes use it to wait for their children); what a pidfd could
	// reach is denied here (pidfd_getfd, setns) or scoped (signals).
	"pidfd_getfd", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp",
}

// socketSyscalls are limited to AF_UNIX when the network is off, so that no
// network socket can exist at all.
var socketSyscalls = [...]string{"socket", "socketpair"}

// buildSeccompFilter compiles the filter with libseccomp and returns it as
// BPF (struct sock_filter array, native byte order). The parent compiles it
// and the helper only loads it, so the helper needs no libseccomp (and no
// cgo). Syscalls this libseccomp does not know for the native architecture
// are skipped; calls from another architecture hit libseccomp's bad-arch
// action (kill), so 32-bit entry points cannot bypass the filter.
func buildSeccompFilter(network bool) ([]byte, error) {
	filter, err := seccomp.NewFilter(seccomp.ActAllow)
	if err != nil {
		return nil, fmt.Errorf("creating filter: %w", err)
	}
	defer filter.Release()
	eperm := seccomp.ActErrno.SetReturnCode(int16(unix.EPERM))
	for _, name := range deniedSyscalls {
		sc, err := seccomp.GetSyscallFromName(name)
		if err != nil {
			continue
		}
		if err := filter.AddRule(sc, eperm); err != nil {
			return nil, fmt.Errorf("rule for %s: %w", name, err)
		}
	}
	if !network {
		notUnix, err := seccomp.MakeCondition(0, seccomp.CompareNotEqual, unix.AF_UNIX)
		if err != nil {
			return nil, fmt.Errorf("socket condition: %w", err)
		}
		for _, name := range socketSyscalls {
			sc, err := seccomp.GetSyscallFromName(name)
			if err != nil {
				return nil, fmt.Errorf("syscall %s: %w", name, err)
			}
			if err := filter.AddRuleConditional(sc, eperm, []seccomp.ScmpCondition{notUnix}); err != nil {
				return nil, fmt.Errorf("rule for %s: %w", name, err)
			}
		}
	}
	// ExportBPFMem needs libseccomp 2.6; a pipe works with every version
	// (the program is a few hundred bytes, well under the pipe buffer).
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("exporting filter: %w", err)
	}
	defer func() { _ = r.Close() }() // a read end: nothing to lose
	err = filter.ExportBPF(w)
	// The program was written into this end: a failed close is a failed export.
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("exporting filter: %w", err)
	}
	prog, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("exporting filter: %w", err)
	}
	if err := proto.CheckBPF(prog); err != nil {
		return nil, err
	}
	return prog, nil
}
