// Package sandbox runs one process under an events.SandboxPlan.
//
// On Linux, Run starts a helper (docket itself, or the stand-alone
// docket-sandbox-helper next to it; see DefaultHelperPath; its code is
// sandbox/internal/confine) in new mount,
// PID, IPC, UTS and (with the network off) network namespaces, plus a user
// namespace when docket is not root, all created by the parent's clone
// flags, because a multithreaded Go process cannot unshare them itself.
// The parent opens the helper binary once (per Capabilities) and execs that
// descriptor, so a rename over its path cannot swap it. The helper, which
// is never dumpable, still privileged inside its namespaces:
//
//  1. makes its copy of the mount table private, makes every mount
//     read-only, mounts fresh read-write (nodev, nosuid) copies of the
//     writable roots on top, binds each protected subpath read-only over
//     itself, makes docket's own binaries under a writable root read-only
//     and unrenamable, and mounts a /proc for the new PID namespace;
//  2. drops every capability from every set of its thread, bounding set
//     included, and locks the securebits, then sets no_new_privs;
//  3. applies Landlock with go-landlock for the kernel's exact ABI: read
//     everywhere, write only the roots (no device nodes) and /dev/null, TCP
//     bind/connect handled with no port allowed when the network is off
//     (ABI 4+), abstract unix sockets and signals scoped (ABI 6+);
//  4. loads the seccomp filter the parent compiled with libseccomp (EPERM
//     for ptrace, io_uring, mount and namespace calls, kernel-wide knobs,
//     and, with the network off, socket/socketpair for every family but
//     AF_UNIX);
//  5. with a PID namespace, makes sure none of its threads holds a
//     capability either: a root helper, started by docket from a thread
//     whose bounding set holds only what the setup needs, drops those few
//     on every thread; any other re-execs the same binary descriptor from
//     the dropped thread, and that init stage starts single-threaded with
//     none. The init reports the layers on the setup pipe and closes it,
//     then runs the command as the only child of PID 1
//     (itself): it forwards termination signals to the whole namespace,
//     reports the command's end on a separate exit pipe, and when the
//     command exits, its own exit makes the kernel kill whatever the
//     command left behind. Without a PID namespace the helper reports and
//     becomes the command (the setup pipe is close-on-exec).
//
// The command gets descriptors 0, 1 and 2 only: every other one is
// close-on-exec, in docket and in the helper.
//
// The parent is never restricted. When the kernel refuses namespaces, Run
// falls back (a user namespace for root too, then no namespaces at all,
// Landlock and seccomp only), records each refusal in
// ExecOutcome.Fallbacks and reports the weaker layers. A fallback is only
// ever decided by clone's refusal or by the setup pipe, which is closed
// before the command exists: nothing the command does can make docket run
// it again. When the plan
// needs a layer the machine cannot give (Landlock, seccomp, or the mount
// namespace with RequireProtectedPaths) it returns an *UnavailableError and
// never runs the command unsandboxed.
//
// Protected paths that do not exist yet (say <root>/.git in a fresh
// directory) cannot be refused by Landlock, and a bind mount needs an
// existing mount point, so the parent creates an empty stub directory
// (mode 0555) that the helper binds read-only; see package stubs.
//
// Run reads what the host says about the plan once (hostFacts: the roots
// that exist, docket's binaries under a root, the git walk, the host's unix
// sockets), builds the call's Spec from that and the plan alone (specFor,
// pure), and hands it to a Launcher, which the caller chooses:
// PerCall starts the helper above for each call; Servers keeps a session's
// sandbox servers: the helper started once per plan, which builds the
// plan's namespaces and mount layout and clones each command's init (C,
// sandbox/internal/initc) from there, with a PID, IPC and mount namespace, a
// devpts, a Landlock domain and a seccomp filter of its own, confined
// before the command is handed to it; the command starts only after docket
// has the layers. Servers falls back to PerCall where the machine cannot
// give a server the strongest setup (root, or user namespaces). The engine
// gives its session's Servers to its calls and hooks; `docket sandbox`
// runs one call per process and uses PerCall.
//
// The code is split by the process it runs in. This package is docket's
// side: Run, the Spec built by specFor, the launchers, the capture, the
// probe, the report lines read back, the servers' client. What runs
// inside the sandbox before execve (the steps above) is
// sandbox/internal/confine, the sandbox server is sandbox/internal/server
// (over its C init, sandbox/internal/initc), and the protocol both sides
// share (the Spec's wire form and its validation, report lines,
// descriptors) is sandbox/internal/proto. This package links neither
// confine nor server; package sandbox/helper is their entry point for a
// binary that is also docket, and the lean helper links confine alone
// (TestTheConfinedSideIsLinkedOnlyWhereItRuns).
//
// Whether an outcome is a sandbox denial (policy.ClassifyDenial), how
// output is shaped for the model (package engine) and what each layer
// stops (package layers, which the audit links without this package) are
// decided outside this package.
//
// Command builds the same helper process without running it, for callers
// that own a long-running process and its stdio (MCP servers over pipes):
// the returned Process's Layers says, once started, whether the helper
// confined itself; it picks the namespace setup from the probed
// capabilities instead of falling back at start.
//
// The package also owns process handling (own session and process group,
// stdin from /dev/null for Run, timeout with SIGTERM then SIGKILL, output capture
// with head-and-tail caps streamed to a callback), environment filtering
// and the macOS Seatbelt profile text (SeatbeltProfile),
// which DESIGN asks for and the tests check as text; no binary runs on
// macOS yet, so deadcode lists it as unreachable on purpose.
//
// Known limits, all of them for the fallbacks without namespaces: the
// protected subpaths are only protected by the mount layer; Landlock does
// not cover metadata (chmod, chown, utimes, xattrs) outside the roots, the
// read-only mounts do; and without a PID namespace a process that leaves
// the session (setsid) survives the call.
package sandbox
