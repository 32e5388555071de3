package sandbox

import (
	"fmt"
	"sync"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/layers"
)

// Capabilities is what this machine can enforce, as Probe found it.
type Capabilities struct {
	// OS is runtime.GOOS.
	OS string `json:"os"`
	// LandlockABI is the kernel's Landlock ABI version; 0 means none.
	LandlockABI int `json:"landlock_abi"`
	// Seccomp reports whether seccomp filters can be loaded.
	Seccomp bool `json:"seccomp"`
	// UserNamespaces reports whether the helper is expected to get a user
	// namespace (and with it mount, PID and network namespaces). Run still
	// falls back when the kernel refuses at clone time.
	UserNamespaces bool `json:"user_namespaces"`
	// Root reports whether docket runs as uid 0, which can create mount,
	// PID and network namespaces without a user namespace.
	Root bool `json:"root"`
	// Notes explain each missing capability.
	Notes []string `json:"notes,omitempty"`

	// The compiled seccomp filters for network off and on, so that Run
	// compiles them once per Prober rather than once per call.
	filterNetOff, filterNetOn []byte
	// binaries keeps the helper binaries open once started (binaries.go).
	binaries *binaryCache
}

// seccompFilter returns the compiled filter Probe kept, or nil.
func (c Capabilities) seccompFilter(network bool) []byte {
	if network {
		return c.filterNetOn
	}
	return c.filterNetOff
}

// Namespaces reports whether mount, PID and network namespaces can be had.
func (c Capabilities) Namespaces() bool { return c.UserNamespaces || c.Root }

// Layers lists the layers plan would get here, in the order ExecOutcome
// reports them; it is a forecast, Run reports what was actually enforced.
// Root gets no user namespace; root and a user namespace both let the
// helper drop every capability, bounding set included. A plan whose
// network goes through the egress proxy gets the empty network namespace
// and the bridge (layers.Egress), one that hides paths layers.Hidden.
func (c Capabilities) Layers(plan events.SandboxPlan) []string {
	network := plan.Network
	var l []string
	if c.LandlockABI > 0 {
		l = append(l, fmt.Sprintf("landlock:v%d", c.LandlockABI))
	}
	if c.Seccomp {
		l = append(l, layers.Seccomp)
	}
	// The bounding set can only be emptied with CAP_SETPCAP: root has it,
	// and so does a helper in a user namespace.
	if c.Namespaces() {
		l = append(l, layers.Caps)
	}
	if !c.Root && c.UserNamespaces {
		l = append(l, layers.UserNS)
	}
	if c.Namespaces() {
		l = append(l, layers.MountNS, layers.PIDNS)
		if !network {
			l = append(l, layers.NetNS)
		}
		l = append(l, layers.IPCNS, layers.UTSNS)
	}
	return append(l, c.fsLayers(plan)...)
}

// Check says whether this machine can enforce plan: Landlock and seccomp
// for any sandboxed plan, and a mount namespace when the plan requires its
// protected paths. It is the check Run makes before starting anything, for
// callers (the engine) that must fail closed before they record a run.
func (c Capabilities) Check(plan events.SandboxPlan) error {
	if !plan.Sandboxed() {
		return nil
	}
	if c.LandlockABI < 1 {
		return &UnavailableError{Missing: []string{"landlock"}, Hint: hintLandlock}
	}
	if !c.Seccomp {
		return &UnavailableError{Missing: []string{layers.Seccomp}, Hint: hintSeccomp}
	}
	if plan.RequireProtectedPaths && len(plan.ReadOnlySubpaths) > 0 && !c.Namespaces() {
		return &UnavailableError{Missing: []string{layers.MountNS}, Hint: hintMountNS}
	}
	return nil
}

// Prober probes once and remembers the answer; the zero value is ready.
// Keep one per process (e.g. in the engine) instead of package state.
type Prober struct {
	once sync.Once
	caps Capabilities
}

// Capabilities returns the probed capabilities, probing on first use.
func (p *Prober) Capabilities() Capabilities {
	p.once.Do(func() { p.caps = Probe() })
	return p.caps
}
