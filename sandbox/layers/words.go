package layers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/docket-engine/docket/events"
)

// Words says, for one layer, what it stops and what its absence costs.
// Every claim in Stops is backed by an attack in package sandbox's escape
// tests (Proofs), and every cost in Missing by a run of those attacks with
// the layer left out (Lost); sandbox/explain_linux_test.go checks both, so the words cannot drift from what the sandbox does under attack.
type Words struct {
	// Layer is the name ExecOutcome.Layers reports ("landlock" for every
	// "landlock:vN").
	Layer string
	// Stops is what the layer stops, in one line.
	Stops string
	// NetworkOff is what it also stops when the plan has the network off.
	NetworkOff string
	// Missing is what a run without the layer loses, in one line; for a
	// layer Run cannot do without, it says that docket refuses instead.
	Missing string
	// Required layers are never missing from a sandboxed run: without
	// them Run fails closed with an *UnavailableError.
	Required bool
	// Proofs name escape cases (or Test functions) of package sandbox whose
	// attack the layer blocks.
	Proofs []string
	// Lost name escape cases that succeed when the sandbox runs without
	// this layer (the fallback without namespaces); empty when leaving it
	// out costs nothing another layer does not cover.
	Lost []string
}

// All is the vocabulary, one entry per layer the sandbox can report. Stops
// reads as a sentence after the layer's name.
func All() []Words {
	return []Words{
		{
			Layer: Landlock, Required: true,
			Stops: "refuses writes outside the writable roots and /dev/null, also through symlinks, " +
				"hard links and renames out of a root, and device nodes made in a root",
			Missing: "docket refuses to run the command sandboxed (sandbox_unavailable): nothing else confines writes to the roots",
			Proofs: []string{"write new file outside the roots", "mkdir outside the roots", "remove a file outside the roots",
				"write through a symlink out of the root", "write through a hard link out of the root", "rename a file out of the root",
				"make a block device in the workspace", "a second Landlock ruleset cannot add rights"},
		},
		{
			Layer: Seccomp, Required: true,
			Stops: "refuses ptrace, io_uring (whose operations bypass seccomp), mount calls, opening files by handle " +
				"(Shocker), reaching into another process (process_vm_readv/writev, pidfd_getfd, kcmp) and the " +
				"other calls docs/sandbox.md lists",
			NetworkOff: "every socket but AF_UNIX (TCP, UDP, raw, netlink)",
			Missing:    "docket refuses to run the command sandboxed (sandbox_unavailable)",
			Proofs: []string{"ptrace a process outside", "ptrace TRACEME", "io_uring_setup", "mount a tmpfs",
				"Shocker with a handle made outside the sandbox", "read and write the helper's memory (process_vm_readv/writev)",
				"UDP send to 127.0.0.1", "netlink socket"},
		},
		{
			Layer: Caps,
			Stops: "leaves the command, and every thread of the helper that outlives its start, no capability in any " +
				"set, bounding set included: no set-uid program gains one, root cannot open files by handle or act " +
				"as CAP_SYS_ADMIN",
			Missing: "never missing when it matters: a root docket always empties them (a failure stops the run), " +
				"and a non-root docket has none to give",
			Proofs: []string{"the command holds a capability", "a thread of PID 1 (the helper) holds a capability",
				"Shocker: append to a file outside the roots by its handle", "use root's CAP_SYS_ADMIN on the host (sethostname)"},
		},
		{
			Layer: UserNS,
			Stops: "keeps the power to build the sandbox inside a new user namespace: docket is not root, " +
				"and the command holds no capability on the host",
			Missing: "not needed when docket runs as root; for anyone else its absence means no other namespace",
			Proofs:  []string{"TestEscapeSuiteUserNamespace", "TestEscapeSuiteProcessUserNamespace"},
		},
		{
			Layer: MountNS,
			Stops: "makes everything but the roots read-only at the mount level, so metadata changes such as chmod, " +
				"which Landlock does not cover, fail too; keeps .git, .docket, .agents, .codex, $DOCKET_HOME and docket's own " +
				"binaries read-only even under a root, not removable, not renamable; makes device nodes in a root unusable",
			Missing: ".git, .docket, .agents and .codex under the writable roots and $DOCKET_HOME are writable (a planted hook " +
				"runs unsandboxed at the next git command) unless require_protected_paths refuses the run; chmod " +
				"and chown outside the roots are refused only by file permissions; a device node planted in a root can be used",
			Proofs: []string{"chmod a file outside the roots", "append to .git/config", "plant a .git hook", "remove .git", "rename .git away",
				"replace .git/config by a rename", "create a missing .docket with rules", "create .git where there is none",
				"write .codex/config.toml in the workspace", "create a missing .codex with rules",
				"write through a symlink into .git", "use a device node planted in the workspace",
				"rewrite $DOCKET_HOME/config.toml under a writable root", "TestHelperBinaryCannotBeReplacedFromInside"},
			Lost: []string{"chmod a file outside the roots", "append to .git/config", "plant a .git hook", "remove .git", "rename .git away",
				"replace .git/config by a rename", "create a missing .docket with rules", "create a missing .agents as a file",
				"write .codex/config.toml in the workspace", "create a missing .codex with rules",
				"create .git where there is none", "write through a symlink into .git", "use a device node planted in the workspace",
				"rewrite $DOCKET_HOME/config.toml under a writable root"},
		},
		{
			Layer: PIDNS,
			Stops: "kills everything the command started when it exits or times out (daemons, setsid, double forks)",
			Missing: "a process the command leaves behind (a daemon, or a child still running at a time-out) outlives " +
				"the call with the sandbox's rights; the host's processes are visible (PID 1 is the host's init)",
			Proofs: []string{"a daemon outlives the command", "a forked child outlives the timeout", "signal a process outside"},
			Lost: []string{"a daemon outlives the command", "a forked child outlives the timeout",
				"a thread of PID 1 (the helper) holds a capability"},
		},
		{
			Layer: NetNS,
			Stops: "leaves the command no network but a loopback of its own, a wall behind seccomp and Landlock's " +
				"TCP rules: no address of the host or the internet, none of the host's abstract unix sockets",
			Missing: "network off rests on seccomp (no socket but AF_UNIX) and Landlock's TCP rules (ABI 4+); " +
				"the host's abstract unix sockets are kept out only by Landlock's scope (ABI 6+)",
			Proofs: []string{"TCP connect to 127.0.0.1", "TCP listen on 127.0.0.1", "abstract unix socket outside the sandbox"},
		},
		{
			Layer:   IPCNS,
			Stops:   "gives the command SysV IPC and POSIX message queues of its own: the host's are out of reach",
			Missing: "the host's SysV shared memory, semaphores and POSIX message queues can be read, written and created",
			Proofs:  []string{"write a host SysV shared memory segment", "create a POSIX message queue on the host"},
			Lost:    []string{"write a host SysV shared memory segment", "create a POSIX message queue on the host"},
		},
		{
			Layer: UTSNS,
			Stops: "gives the command a host name of its own; on its own it stops nothing, since without capabilities " +
				"the host name cannot be changed anyway",
			Missing: "nothing while caps holds: the host name stays unchangeable",
			Proofs:  []string{"use root's CAP_SYS_ADMIN on the host (sethostname)"},
		},
		{
			Layer: Devpts,
			Stops: "gives the command a pty instance of its own: it can open ptys (script, expect, ssh -t) and " +
				"write to none of the host's",
			Missing: "ptys cannot be opened inside (openpty fails); the host's stay unwritable (Landlock)",
			Proofs:  []string{"openpty works", "script(1) gets a tty", "write to a host pty"},
		},
		{
			Layer: Hidden,
			Stops: "covers each path the permission profile hides with an empty read-only directory or file: " +
				"unreadable directly, through symlinks, /proc/self/root, /proc/self/cwd or a renamed parent",
			Missing: "docket refuses to run the command (a plan with hidden paths needs a mount namespace)",
			Proofs:  []string{"TestHiddenPathsCannotBeReadByAnyPath", "TestAHiddenFileThatGainedAHardLinkIsRefused"},
		},
		{
			Layer: Egress,
			Stops: "leaves the command one way out of its empty network namespace: the egress proxy at " +
				"127.0.0.1:3128, which decides by name; a direct connection, IPv6, raw DNS and other ports go nowhere",
			Missing: "docket refuses to run the command (a plan whose network goes through the proxy needs the bridge)",
			Proofs:  []string{"TestEgressBridgeIsTheOnlyWayOut", "TestAnEgressPlanWithoutAProxyIsRefused"},
		},
		{
			Layer: GitDirs,
			Stops: "keeps read-only the git directories of nested repositories and of the repository around a " +
				"workspace given as a subdirectory, puts stubs where a repository could be planted above a root, " +
				"and makes every root its own mount, so none can be renamed away and replanted",
			Missing: "only <root>/.git is protected: a nested repository, the repository around the workspace and a " +
				"repository planted above a root can be given hooks that run unsandboxed",
			Proofs: []string{"plant a hook in a nested repository", "redirect a nested worktree's gitdir file",
				"append to the config of the repository around the workspace", "rename a workspace under a writable root away and replant it",
				"rename the directory above a nested workspace and replant it", "plant a repository above a nested workspace"},
			Lost: []string{"plant a hook in a nested repository", "redirect a nested worktree's gitdir file",
				"append to the config of the repository around the workspace", "rename a workspace under a writable root away and replant it",
				"rename the directory above a nested workspace and replant it", "plant a repository above a nested workspace"},
		},
		{
			Layer: GitDirsPartial,
			Stops: "protects the git directories the bounded walk of the roots reached; it stopped at its bound, so " +
				"what it did not look into is read-only for this call (writes there fail; fewer or smaller writable roots, " +
				"or exclude_slash_tmp for a full /tmp, avoid it)",
			Missing: "as gitdirs",
			Proofs:  []string{"plant a hook in a nested repository"},
		},
		{
			Layer: UnixSockets,
			Stops: "with the network off, covers every pathname unix socket bound in docket's network namespace when " +
				"the call started (docker.sock, ssh-agent, D-Bus), so none can be connected to",
			Missing: "pathname unix sockets outside the sandbox (docker.sock, ssh-agent, D-Bus) can be connected to: " +
				"code execution outside",
			Proofs: []string{"connect to a unix socket outside the roots", "connect to a unix socket in /run",
				"connect to a host process's unix socket inside the workspace"},
			Lost: []string{"connect to a unix socket outside the roots", "connect to a unix socket in /run",
				"connect to a host process's unix socket inside the workspace"},
		},
		{
			Layer: UnixSockets + ":partial",
			Stops: "with the network off, covers the pathname unix sockets bound in docket's network namespace up to " +
				"its bound; the list was cut short, so the sockets past it are NOT covered",
			Missing: "as unix-sockets-covered",
			Proofs:  []string{"connect to a unix socket outside the roots"},
		},
		{
			Layer:   Rlimit,
			Stops:   "sets kernel limits on every process of the call (the limit: lines say which and how much)",
			Missing: "see the limit: lines",
			Proofs:  []string{"spin past the CPU limit", "write a file past the size limit"},
		},
		{
			Layer:   Cgroup,
			Stops:   "puts the call in a cgroup of its own, which bounds the memory and the tasks of the whole call",
			Missing: "see the limit: lines",
			Proofs:  []string{"allocate past the memory limit", "fork bomb past the process limit"},
		},
	}
}

// Describe returns the words for a reported layer name ("landlock:v7",
// "seccomp", ...); ok is false for a name this version has no words for.
func Describe(layer string) (Words, bool) {
	words := All()
	// A variant with words of its own ("gitdirs:partial") wins over its base.
	for _, name := range []string{layer, Base(layer)} {
		for _, w := range words {
			if w.Layer == name {
				return w, true
			}
		}
	}
	return Words{}, false
}

// Base strips what a reported name adds to the layer: the details
// after a colon ("landlock:v7", "rlimit:cpu,fsize") and a version suffix
// ("cgroup-v2").
func Base(layer string) string {
	if i := strings.IndexByte(layer, ':'); i >= 0 {
		layer = layer[:i]
	}
	if i := strings.LastIndex(layer, "-v"); i > 0 {
		if _, err := strconv.Atoi(layer[i+2:]); err == nil {
			layer = layer[:i]
		}
	}
	return layer
}

// landlockABI reads N from "landlock:vN"; 0 when layers has no Landlock.
func landlockABI(layers []string) int {
	for _, l := range layers {
		if v, ok := strings.CutPrefix(l, Landlock+":v"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return 0
}

// Line is one line of an Explanation: a layer and its words.
type Line struct {
	Layer string `json:"layer"`
	Words string `json:"words"`
}

// Explanation is, in words, the sandbox one run had (or would have): what
// each layer in force stops, what each absent layer costs, and the limits.
type Explanation struct {
	Mode    string `json:"mode"`
	Network bool   `json:"network"`
	// Egress says the command's network goes only through the session's
	// egress proxy (Network is false: no direct network).
	Egress bool `json:"egress_proxy,omitempty"`
	// Sandboxed is false for a plan that runs the command unconfined.
	Sandboxed bool `json:"sandboxed"`
	// InForce lists each reported layer and what it stops.
	InForce []Line `json:"in_force,omitempty"`
	// Missing lists each layer this plan would want but did not get, and
	// each limit it sets that nothing enforced, and what that costs.
	Missing []Line `json:"missing,omitempty"`
	// Limits lists each resource limit in force: how much, and how enforced.
	Limits []Line `json:"limits,omitempty"`
}

// Explain puts into words the layers a run reported (ExecOutcome.Layers, or
// Capabilities.Layers for a forecast) under plan.
func Explain(plan events.SandboxPlan, layers []string) Explanation {

	e := Explanation{Mode: string(plan.Mode), Network: plan.Network, Egress: plan.Egress, Sandboxed: plan.Sandboxed()}
	if !e.Sandboxed {
		return e
	}
	have := map[string]bool{}
	for _, l := range layers {
		have[Base(l)] = true
		words := "is not described by this version of docket"
		if w, ok := Describe(l); ok {
			words = w.Stops
			if w.NetworkOff != "" && !plan.Network {
				words += "; with the network off, " + w.NetworkOff
			}
		}
		if base := Base(l); base == Landlock {
			words += landlockExtras(landlockABI([]string{l}), plan.Network, plan.Egress, plan.Egress && plan.LocalBinding)
		}
		e.InForce = append(e.InForce, Line{Layer: l, Words: words})
	}
	for _, w := range All() {
		if have[w.Layer] || !wanted(w.Layer, plan, landlockABI(layers)) {
			continue
		}
		e.Missing = append(e.Missing, Line{Layer: w.Layer, Words: w.Missing})
	}
	if abi := landlockABI(layers); abi > 0 {
		e.Missing = append(e.Missing, landlockGaps(abi, plan.Network)...)
	}
	limits, missing := explainLimits(plan.Limits, layers)
	e.Limits = limits
	e.Missing = append(e.Missing, missing...)
	return e
}

// wanted says whether a sandboxed run under plan should have layer.
func wanted(layer string, plan events.SandboxPlan, abi int) bool {
	switch layer {
	case NetNS:
		return !plan.Network
	case UnixSockets:
		// Landlock refuses pathname unix sockets itself from ABI 9.
		return !plan.Network && abi < 9
	case GitDirs:
		return plan.Mode == events.SandboxWorkspaceWrite
	case Hidden:
		return len(plan.Hidden) > 0
	case Egress:
		return plan.Egress
	case GitDirsPartial, UnixSockets + ":partial", Rlimit, Cgroup:
		// Variants of a layer, and the limits, which have lines of their own.
		return false
	case UserNS:
		// Only the way an unprivileged docket gets the other namespaces;
		// their absence is what counts.
		return false
	case Caps:
		// Reported when docket runs as root, which always cuts them (a
		// failure stops the run); a non-root docket has none to cut. The
		// journal does not say which, so its absence is never a gap.
		return false
	}
	return true
}

// landlockExtras adds what this ABI stops beyond the file rules.
// Under an egress plan Landlock leaves TCP connect to the bridge's port
// (to any address: the empty network namespace has only its loopback).
func landlockExtras(abi int, network, egress, localBinding bool) string {
	var s string
	switch {
	case abi >= 4 && !network && localBinding:
		s += "; with the network off, TCP connect (binding and listening on the command's own loopback stay allowed: allow_local_binding)"
	case abi >= 4 && !network:
		s += "; with the network off, TCP connect and bind"
	}
	if abi >= 4 && !network && egress {
		s += ", but for connect to port 3128 (the egress bridge)"
	}
	if abi >= 6 {
		s += "; refuses abstract unix sockets and signals to processes outside the sandbox"
	}
	return s
}

// landlockGaps lists the Landlock features an older kernel lacks, as
// missing layers.
func landlockGaps(abi int, network bool) []Line {
	var gaps []Line
	if abi < 4 && !network {
		gaps = append(gaps, Line{Layer: "landlock:tcp (ABI 4)",
			Words: "network off rests on seccomp and the network namespace alone"})
	}
	if abi < 6 {
		gaps = append(gaps, Line{Layer: "landlock:scope (ABI 6)",
			Words: "abstract unix sockets and signals outside are kept out only by the network and PID namespaces"})
	}
	return gaps
}

// Lines renders the explanation as text lines without trailing newlines,
// for `docket sandbox --explain` and the audit.
func (e Explanation) Lines() []string {
	if !e.Sandboxed {
		return []string{"no sandbox (mode " + orNone(e.Mode) + "): the command runs with docket's own rights"}
	}
	lines := []string{fmt.Sprintf("sandbox %s, network %s", e.Mode, events.NetworkWords(e.Network, e.Egress))}
	for _, l := range e.InForce {
		lines = append(lines, fmt.Sprintf("  %s %s", l.Layer, l.Words))
	}
	for _, l := range e.Limits {
		lines = append(lines, fmt.Sprintf("  %s %s", l.Layer, l.Words))
	}
	for _, l := range e.Missing {
		lines = append(lines, fmt.Sprintf("  MISSING %s: %s", l.Layer, l.Words))
	}
	return lines
}

func orNone(s string) string {
	if s == "" {
		return "no mode"
	}
	return s
}
