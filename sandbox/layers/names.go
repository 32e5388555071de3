package layers

// Layer names reported in events.ExecOutcome.Layers. Landlock is reported as
// "landlock:vN" with the ABI actually used, the limits as "rlimit:cpu,fsize"
// and "cgroup-v2:memory,pids", a walk or a socket list cut short with
// ":partial".
const (
	// Landlock is the Landlock layer's name without its ABI suffix.
	Landlock = "landlock"
	// Seccomp: the filter docket compiled is loaded.
	Seccomp = "seccomp"
	// Caps: the command holds no capability, bounding set included.
	Caps = "caps"
	// UserNS: the other namespaces were made inside a user namespace.
	UserNS = "userns"
	// MountNS: the command has a mount table of its own.
	MountNS = "mountns"
	// PIDNS: the command's processes die with their PID namespace.
	PIDNS = "pidns"
	// NetNS: the command has a network namespace of its own (network off).
	NetNS = "netns"
	// IPCNS: SysV IPC and POSIX message queues of the sandbox's own.
	IPCNS = "ipcns"
	// UTSNS: a host name of the sandbox's own.
	UTSNS = "utsns"
	// Devpts: the command got a private devpts instance, so it can open
	// new ptys (script, expect, ssh -t) but reach no pty of the host.
	Devpts = "devpts"
	// UnixSockets: with the network off, every pathname unix socket bound
	// in docket's network namespace when the call started is covered (a
	// read-only /dev/null bound over it) in the command's mount namespace.
	// Landlock refuses connecting to such sockets only from ABI 9
	// (LANDLOCK_ACCESS_FS_RESOLVE_UNIX); this layer does it on older
	// kernels too. Reported with ":partial" when the list was cut short.
	UnixSockets = "unix-sockets-covered"
	// UnixSocketsPartial is UnixSockets with the list cut at its bound.
	UnixSocketsPartial = UnixSockets + ":partial"
	// GitDirs: the git directories the walk of the roots found are
	// read-only; GitDirsPartial when the walk stopped early.
	GitDirs        = "gitdirs"
	GitDirsPartial = "gitdirs:partial"
	// Hidden: the paths a permission profile hides are covered in the
	// command's mount namespace.
	Hidden = "hidden-paths"
	// Egress: the command's only way out of its empty network namespace
	// is the session's egress proxy, through the bridge.
	Egress = "egress-bridge"
	// Rlimit is "rlimit:" followed by the rlimits set (cpu, fsize, nproc).
	Rlimit = "rlimit"
	// Cgroup is "cgroup-v1:" or "cgroup-v2:" followed by the controllers
	// the command's cgroup limits (memory, pids).
	Cgroup = "cgroup"
)
