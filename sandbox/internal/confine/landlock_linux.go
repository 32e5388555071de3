package confine

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/docket-engine/docket/sandbox/bridge"
	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// landlockConfigs are go-landlock's presets by ABI version (index 0 is V1).
var landlockConfigs = [...]landlock.Config{
	landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

// applyLandlock restricts the whole process (every thread) to reading
// everywhere and writing only the writable roots (no device nodes) and
// /dev/null; with the
// network off it also handles TCP bind/connect (ABI 4+) with no port
// allowed, and it always scopes abstract unix sockets and signals to the
// sandbox (ABI 6+). It returns the ABI version used.
//
// The configuration is built for the kernel's exact ABI rather than with
// BestEffort, because go-landlock's best effort silently enforces nothing
// when a rule cannot be downgraded; here a mismatch is an error.
func applyLandlock(spec proto.Spec) (int, error) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, fmt.Errorf("landlock not available: %w", err)
	}
	if abi < 1 {
		return 0, fmt.Errorf("landlock ABI %d", abi)
	}
	if abi > len(landlockConfigs) {
		abi = len(landlockConfigs)
	}
	preset := landlockConfigs[abi-1]
	cfg := landlock.Config{HandledAccessFS: preset.HandledAccessFS, Scoped: preset.Scoped}
	if !spec.Network {
		cfg.HandledAccessNet = localBinding(spec, preset.HandledAccessNet)
	}
	read := landlock.RODirs("/")
	if spec.Network {
		// Pathname unix sockets outside the sandbox (ABI 9+) count as
		// network, as they do for Seatbelt.
		read = read.WithResolveUnix()
	}
	rules := []landlock.Rule{read, landlock.RWFiles("/dev/null")}
	// Everything in the roots but creating device nodes (a block device
	// made in the workspace would be the whole disk) and ioctl on devices.
	// Refer allows renames and links inside the roots; Landlock still
	// refuses any that would move a file out of them. Pathname unix
	// sockets are handled as network, like the read rule above.
	rw := cfg.HandledAccessFS &^ landlock.AccessFSSet(ll.AccessFSMakeChar|ll.AccessFSMakeBlock|ll.AccessFSIoctlDev|ll.AccessFSResolveUnix)
	if spec.Network {
		rw |= cfg.HandledAccessFS & landlock.AccessFSSet(ll.AccessFSResolveUnix)
	}
	for _, root := range spec.Writable {
		rules = append(rules, landlock.PathAccess(rw, root).IgnoreIfMissing())
	}
	if spec.PrivatePTY {
		// Opening a pty writes /dev/ptmx and /dev/pts/N and needs terminal
		// ioctls on them (TIOCGPTN, TCSETS...). Only on the sandbox's own
		// devpts: the host's ptys are not in its mount namespace.
		tty := cfg.HandledAccessFS & landlock.AccessFSSet(ll.AccessFSReadFile|ll.AccessFSWriteFile|ll.AccessFSIoctlDev)
		rules = append(rules, landlock.PathAccess(tty, "/dev/ptmx", "/dev/pts", "/dev/tty").IgnoreIfMissing())
	}
	if spec.Bridge && cfg.HandledAccessNet != 0 {
		// The bridge's port is the one TCP connect left.
		rules = append(rules, landlock.ConnectTCP(bridge.Port))
	}
	if err := cfg.Restrict(rules...); err != nil {
		return 0, err
	}
	return abi, nil
}
