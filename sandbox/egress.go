package sandbox

import (
	"context"
	"net"
)

// Bridge serves the egress proxy on a listener made inside a command's
// network namespace; *egress.Proxy is one. Serve returns when ctx ends.
type Bridge interface {
	Serve(ctx context.Context, ln net.Listener) error
}
