package sandbox

import (
	"context"
	"errors"
	"net"

	"github.com/docket-engine/docket/sandbox/layers"
)

// binaryFDNumber is the last of the protocol's fixed descriptors (setup,
// exit, binary: 3, 4, 5); the bridge channel comes after them.
const binaryFDNumber = 5

// LayerEgress names the bridge to the session's egress proxy: the
// command's only way out of its empty network namespace.
const LayerEgress = layers.Egress

// Bridge serves the egress proxy on a listener made inside a command's
// network namespace; *egress.Proxy is one. Serve returns when ctx ends.
type Bridge interface {
	Serve(ctx context.Context, ln net.Listener) error
}

// checkBridge refuses a bridge the helper could not build safely: one
// outside a network namespace of its own would listen on the host's
// loopback, and its channel must follow the protocol's descriptors.
func (s Spec) checkBridge() error {
	switch {
	case !s.Bridge && s.BridgeFD == 0:
		return nil
	case !s.Bridge || s.BridgeFD <= binaryFDNumber:
		return errors.New("bridge: bad descriptor")
	case !s.NS.Net || !s.NS.User || s.Network:
		return errors.New("bridge: needs its own network and user namespaces, with the direct network off")
	case s.Server:
		return errors.New("bridge: not for a sandbox server")
	}
	return nil
}
