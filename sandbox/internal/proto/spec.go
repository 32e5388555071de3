package proto

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docket-engine/docket/events"
)

// HelperArg is the first argument that puts the docket binary in helper mode.
const HelperArg = "__docket_sandbox_helper"

// Version is the helper protocol's version, bumped on any change to
// Spec or the report lines.
const Version = 4

// IsHelper reports whether args (os.Args) ask for the sandbox helper.
func IsHelper(args []string) bool { return len(args) > 1 && args[1] == HelperArg }

// Namespaces says which namespaces the parent created with clone flags.
type Namespaces struct {
	User  bool `json:"user,omitempty"`
	Mount bool `json:"mount,omitempty"`
	PID   bool `json:"pid,omitempty"`
	Net   bool `json:"net,omitempty"`
	// IPC and UTS come with Mount: SysV IPC and POSIX message queues, and
	// the host name, are the sandbox's own.
	IPC bool `json:"ipc,omitempty"`
	UTS bool `json:"uts,omitempty"`
}

// Spec is the wire form of one sandboxed call: what the plan asks, with
// the paths resolved on the host, the filter compiled and the layers to
// build. It is built once per call, purely, by specFor (from the journaled
// plan, the resolved roots, the git directories the walk found and the
// stubs held) and handed to a Launcher: the per-call helper gets all of it
// as one JSON argument; a server gets its session part once, when it
// starts (serverBase), and each command's CallSpec with the command
// (ServerCommand). Paths are absolute and clean.
type Spec struct {
	// V is Version; a helper binary from another docket version refuses
	// the spec instead of misreading it.
	V    int                `json:"v"`
	Mode events.SandboxMode `json:"mode"`
	// Writable are the roots Landlock and the mount layout let the command write.
	Writable []string   `json:"writable,omitempty"`
	Network  bool       `json:"network,omitempty"`
	NS       Namespaces `json:"ns"`
	// Seccomp is the compiled filter (struct sock_filter array) to load.
	Seccomp []byte `json:"seccomp"`
	// Binaries are docket's own executables (the helper, the docket
	// binary) that lie under a writable root; the helper makes each
	// read-only and unrenamable in its mount namespace.
	Binaries []string `json:"binaries,omitempty"`
	// Init marks the second stage: the helper re-executed (from the
	// descriptor docket verified) after it confined itself, with no
	// capabilities on any thread, to run as the PID namespace's init.
	// Layers are the layers the first stage enforced, for it to report.
	Init   bool     `json:"init,omitempty"`
	Layers []string `json:"layers,omitempty"`
	// LoaderEnv holds the command's LD_* variables, kept out of the
	// helper's own environment so that no library is preloaded into the
	// helper before it is confined; the helper restores them for the command.
	LoaderEnv []string `json:"loader_env,omitempty"`
	// Trace says the start-up trace's file is open at traceFD (see
	// trace_linux.go); only docket sets it, only when TraceEnv is set.
	Trace bool `json:"trace,omitempty"`
	// Server starts the sandbox server (sandbox/internal/server) instead of
	// one command: the CallSpec comes with each command, and the PID
	// namespace is each command's own.
	Server bool `json:"server,omitempty"`
	// Bridge asks the helper to make the egress bridge's listener inside
	// the network namespace and send it to docket on BridgeFD.
	Bridge   bool `json:"bridge,omitempty"`
	BridgeFD int  `json:"bridge_fd,omitempty"`
	// Hidden are the plan's hidden paths, covered in the mount namespace.
	Hidden []string `json:"hidden,omitempty"`
	// LocalBinding leaves TCP bind to the command when the direct network
	// is off (the plan's LocalBinding, with its egress bridge): Landlock
	// then handles TCP connect only.
	LocalBinding bool `json:"local_binding,omitempty"`
	// CallSpec is what one command brings; its fields are encoded as the
	// Spec's own.
	CallSpec
	// PrivatePTY is set by the helper itself once it mounted a devpts of
	// its own; it is never on the wire.
	PrivatePTY bool `json:"-"`
}

// CallSpec is the part of a Spec that is one command's: a server built
// everything else once for the session.
type CallSpec struct {
	Cwd string `json:"cwd"`
	// Path is the resolved executable; argv follows "--" on the command line.
	Path string `json:"path"`
	// Protected are the read-only subpaths under Writable to bind read-only;
	// each exists (the parent held a stub for a missing one).
	Protected []string `json:"protected,omitempty"`
	// Scanned are the protected paths the git walk found existing (not
	// asked for by the plan): one that vanishes before the helper binds it
	// (another process removed its repository) is skipped, not an error.
	Scanned []string `json:"scanned,omitempty"`
	// Unseen are the directories below Writable the git walk did not look
	// into (it stopped at its bound, or could not open them): bound
	// read-only before Protected, so that nothing unseen is writable.
	Unseen []string `json:"unseen,omitempty"`
	// UnixSockets are the host's bound pathname unix sockets to cover when
	// the network is off; UnixSocketsPartial when the list is incomplete.
	UnixSockets        []string `json:"unix_sockets,omitempty"`
	UnixSocketsPartial bool     `json:"unix_sockets_partial,omitempty"`
	// GitScan says whether the walk for other git directories under the
	// roots (see gitdirs.go) was "complete" or "partial"; empty without roots.
	GitScan string `json:"git_scan,omitempty"`
	// Limits are the resource limits the helper applies
	// (sandbox/internal/confine/limits_linux.go).
	Limits Limits `json:"limits"`
}

// SplitLoaderEnv separates the dynamic loader's variables from env.
func SplitLoaderEnv(env []string) (rest, loader []string) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "LD_") {
			loader = append(loader, kv)
		} else {
			rest = append(rest, kv)
		}
	}
	return rest, loader
}

// Args builds the helper's argv: exe, HelperArg, spec, "--", argv...
func Args(exe string, spec Spec, argv []string) ([]string, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("encoding helper spec: %w", err)
	}
	args := make([]string, 0, 4+len(argv))
	args = append(args, exe, HelperArg, string(b), "--")
	return append(args, argv...), nil
}

// Parse is the inverse of Args; it validates everything the
// helper will act on, since a bad spec must not half-build a sandbox.
func Parse(args []string) (Spec, []string, error) {
	var spec Spec
	if len(args) < 5 || args[1] != HelperArg || args[3] != "--" {
		return spec, nil, errors.New("usage: docket " + HelperArg + " SPEC -- CMD [ARG...]")
	}
	dec := json.NewDecoder(strings.NewReader(args[2]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return spec, nil, fmt.Errorf("helper spec: %w", err)
	}
	if dec.More() {
		return spec, nil, errors.New("helper spec: trailing data after the JSON object")
	}
	if err := spec.Validate(); err != nil {
		return spec, nil, fmt.Errorf("helper spec: %w", err)
	}
	return spec, args[4:], nil
}

// Validate checks everything the helper will act on.
func (s Spec) Validate() error {
	if s.V != Version {
		return fmt.Errorf("protocol version %d, this helper speaks %d: the helper binary and docket come from different builds", s.V, Version)
	}
	if err := CheckBPF(s.Seccomp); err != nil {
		return err
	}
	if err := s.checkBridge(); err != nil {
		return err
	}
	if err := s.checkHidden(); err != nil {
		return err
	}
	switch s.Mode {
	case events.SandboxReadOnly:
		if len(s.Writable) > 0 || len(s.Protected) > 0 {
			return errors.New("read-only mode has no writable roots")
		}
	case events.SandboxWorkspaceWrite:
	default:
		return fmt.Errorf("mode %q: want %q or %q", s.Mode, events.SandboxReadOnly, events.SandboxWorkspaceWrite)
	}
	for _, p := range s.Writable {
		if err := CheckAbsClean("writable root", p); err != nil {
			return err
		}
	}
	for _, p := range s.Protected {
		if err := CheckAbsClean("protected path", p); err != nil {
			return err
		}
		if !events.WithinAny(p, s.Writable) {
			return fmt.Errorf("protected path %q is not under a writable root", p)
		}
	}
	if s.Server {
		if !s.NS.Mount || s.NS.PID || s.Init || len(s.Protected) > 0 || s.Cwd != "" || s.Path != "" {
			return errors.New("a sandbox server has a mount namespace, no PID namespace, and no command of its own")
		}
		return nil
	}
	if err := CheckAbsClean("cwd", s.Cwd); err != nil {
		return err
	}
	if err := CheckAbsClean("path", s.Path); err != nil {
		return err
	}
	for _, p := range s.Scanned {
		if !slices.Contains(s.Protected, p) {
			return fmt.Errorf("scanned path %q is not a protected path", p)
		}
	}
	for _, p := range s.Unseen {
		if err := CheckAbsClean("unseen directory", p); err != nil {
			return err
		}
		if !events.WithinAny(p, s.Writable) {
			return fmt.Errorf("unseen directory %q is not under a writable root", p)
		}
	}
	if len(s.Unseen) > 0 && !s.NS.Mount {
		return errors.New("unseen directories need a mount namespace")
	}
	for _, p := range s.UnixSockets {
		if err := CheckAbsClean("unix socket", p); err != nil {
			return err
		}
	}
	for _, p := range s.Limits.CgroupProcs {
		if err := CheckAbsClean("cgroup", p); err != nil {
			return err
		}
	}
	for _, kv := range s.LoaderEnv {
		if !strings.HasPrefix(kv, "LD_") || strings.ContainsRune(kv, 0) {
			return fmt.Errorf("loader variable %q: want LD_*", kv)
		}
	}
	if len(s.Protected) > 0 && !s.NS.Mount {
		return errors.New("protected paths need a mount namespace")
	}
	for _, p := range s.Binaries {
		if err := CheckAbsClean("binary", p); err != nil {
			return err
		}
		if !events.WithinAny(p, s.Writable) {
			return fmt.Errorf("binary %q is not under a writable root", p)
		}
	}
	if len(s.Binaries) > 0 && !s.NS.Mount {
		return errors.New("protecting docket's binaries needs a mount namespace")
	}
	if s.Init && (!s.NS.PID || len(s.Layers) == 0) {
		return errors.New("the init stage needs a PID namespace and the layers to report")
	}
	if !s.Init && len(s.Layers) > 0 {
		return errors.New("layers are only passed to the init stage")
	}
	return nil
}

// CheckAbsClean refuses a path that is not absolute and clean.
func CheckAbsClean(what, p string) error {
	if p == "" || !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%s %q: want an absolute, clean path", what, p)
	}
	return nil
}

// SockFilterSize is sizeof(struct sock_filter).
const SockFilterSize = 8

// maxBPFInstructions is the kernel's BPF_MAXINSNS.
const maxBPFInstructions = 4096

// CheckBPF checks that prog has the shape of a sock_filter array.
func CheckBPF(prog []byte) error {
	if len(prog) == 0 || len(prog)%SockFilterSize != 0 || len(prog)/SockFilterSize > maxBPFInstructions {
		return fmt.Errorf("seccomp program of %d bytes is not a sock_filter array", len(prog))
	}
	return nil
}
