package confine

import (
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// localBinding is the network access Landlock handles with the direct
// network off: TCP connect and bind, or connect alone when the profile
// allows local binding (allow_local_binding), so the command may listen
// on its own namespace's loopback while still reaching nothing but the
// egress bridge.
func localBinding(spec proto.Spec, handled landlock.AccessNetSet) landlock.AccessNetSet {
	if spec.LocalBinding {
		return handled &^ landlock.AccessNetSet(ll.AccessNetBindTCP)
	}
	return handled
}
