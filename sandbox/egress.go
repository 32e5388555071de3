package sandbox

import (
	"context"
	"net"

	"github.com/docket-engine/docket/sandbox/layers"
)

// LayerEgress names the bridge to the session's egress proxy: the
// command's only way out of its empty network namespace.
const LayerEgress = layers.Egress

// Bridge serves the egress proxy on a listener made inside a command's
// network namespace; *egress.Proxy is one. Serve returns when ctx ends.
type Bridge interface {
	Serve(ctx context.Context, ln net.Listener) error
}
