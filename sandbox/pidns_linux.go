package sandbox

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// Layers an unsandboxed run reports for what ends its processes when
// docket dies (kill -9 included). The sandbox's own PID namespace takes
// every process of a sandboxed run down with docket; an unsandboxed run has
// only what these say.
const (
	// LayerDiesPIDNamespace: the command ran as the init of a PID
	// namespace of its own, and its leader gets SIGKILL when docket dies
	// (the parent-death signal): the kernel then kills every process in
	// the namespace, setsid daemons and double forks included.
	LayerDiesPIDNamespace = "dies-with-docket:pid-namespace"
	// LayerDiesLeaderOnly: no PID namespace could be made (docket lacks
	// CAP_SYS_ADMIN and an unsandboxed command gets no user namespace, which
	// would change what it may do as its user), so only the leader gets
	// the parent-death signal: a background process it started can outlive
	// a killed docket. A clean exit, a timeout and a cancel still end them
	// all (the tree kill).
	LayerDiesLeaderOnly = "dies-with-docket:leader-only"
)

// unsandboxedPIDNamespace reports whether an unsandboxed command can get a
// PID namespace of its own: docket holds CAP_SYS_ADMIN (root, typically).
// A command in it sees the host's /proc and its own pid as 1; nothing else
// of what it may do changes.
func unsandboxedPIDNamespace() bool {
	return !lifelineDisabled() && hasEffective(unix.CAP_SYS_ADMIN)
}

// pidNamespaceRefused reports whether a start failed because the kernel or
// a seccomp profile refused CLONE_NEWPID, so that the command may be
// started again without it.
func pidNamespaceRefused(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) ||
		errors.Is(err, syscall.EUSERS)
}
