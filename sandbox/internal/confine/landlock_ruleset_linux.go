package confine

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// LandlockRuleset builds, as a ruleset descriptor, the same rules
// applyLandlock enforces. The sandbox server needs the descriptor: it
// restricts each command's init on its own (landlock_restrict_self from
// the one thread of a fresh process), where go-landlock restricts every
// thread of the calling process. It returns the descriptor and the ABI.
func LandlockRuleset(spec proto.Spec) (int, int, error) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil {
		return -1, 0, fmt.Errorf("landlock not available: %w", err)
	}
	if abi < 1 {
		return -1, 0, fmt.Errorf("landlock ABI %d", abi)
	}
	if abi > len(landlockConfigs) {
		abi = len(landlockConfigs)
	}
	preset := landlockConfigs[abi-1]
	handled := preset.HandledAccessFS
	attr := ll.RulesetAttr{HandledAccessFS: uint64(handled), Scoped: uint64(preset.Scoped)}
	if !spec.Network {
		attr.HandledAccessNet = uint64(localBinding(spec, preset.HandledAccessNet))
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	read := landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir)
	if spec.Network {
		read |= landlock.AccessFSSet(ll.AccessFSResolveUnix)
	}
	file := landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate)
	rw := handled &^ landlock.AccessFSSet(ll.AccessFSMakeChar|ll.AccessFSMakeBlock|ll.AccessFSIoctlDev|ll.AccessFSResolveUnix)
	if spec.Network {
		rw |= handled & landlock.AccessFSSet(ll.AccessFSResolveUnix)
	}
	type rule struct {
		access        landlock.AccessFSSet
		paths         []string
		ignoreMissing bool
	}
	rules := []rule{{read, []string{"/"}, false}, {file, []string{"/dev/null"}, false}, {rw, spec.Writable, true}}
	if spec.PrivatePTY {
		tty := handled & landlock.AccessFSSet(ll.AccessFSReadFile|ll.AccessFSWriteFile|ll.AccessFSIoctlDev)
		rules = append(rules, rule{tty, []string{"/dev/ptmx", "/dev/pts", "/dev/tty"}, true})
	}
	for _, r := range rules {
		access := r.access & handled
		if access == 0 {
			continue
		}
		for _, p := range r.paths {
			if err := addLandlockPath(fd, p, access); err != nil {
				if r.ignoreMissing && errors.Is(err, unix.ENOENT) {
					continue
				}
				_ = unix.Close(fd) // a ruleset nobody will use: nothing to flush
				return -1, 0, fmt.Errorf("landlock rule for %s: %w", p, err)
			}
		}
	}
	return fd, abi, nil
}

// addLandlockPath allows access beneath path.
func addLandlockPath(ruleset int, path string, access landlock.AccessFSSet) error {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(pfd) }() // an O_PATH descriptor: nothing to flush
	return ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{ParentFd: pfd, AllowedAccess: uint64(access)}, 0)
}
