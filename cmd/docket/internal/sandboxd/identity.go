package sandboxd

import "golang.org/x/sys/unix"

// Identity is what CheckPeer compares a caller with: the daemon's own
// namespaces and confinement, read once.
type Identity struct {
	ns     [3]unix.Stat_t
	status []byte
}
