package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/bridge"
	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// errNoBridge is a plan whose network goes through the egress proxy, run
// without a proxy to serve it: refused rather than run with no way out
// (or, worse, the host's network).
var errNoBridge = errors.New("the plan's network goes through the egress proxy, and the request has no proxy (Request.Bridge)")

// proxyVar reports the proxy variables the bridge sets or clears.
func proxyVar(name string) bool {
	switch strings.ToUpper(name) {
	case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY":
		return true
	}
	return false
}

// withBridgeEnv replaces every proxy variable of env with the bridge's.
func withBridgeEnv(env []string) []string {
	out := make([]string, 0, len(env)+8)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !proxyVar(name) {
			out = append(out, kv)
		}
	}
	return append(out, bridge.Env()...)
}

// bridgeChannel is docket's end of the unix socket the helper sends the
// listener on, and the helper's end, passed as an extra descriptor.
type bridgeChannel struct {
	ours, theirs *os.File
}

func newBridgeChannel() (*bridgeChannel, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: bridge channel: %w", err)
	}
	return &bridgeChannel{ours: os.NewFile(uintptr(fds[0]), "bridge"), theirs: os.NewFile(uintptr(fds[1]), "bridge-helper")}, nil
}

// serve receives the listener the helper made and serves the proxy on it
// until ctx ends. A helper that died before sending closes the channel:
// nothing is served, and the helper's own report says why.
func (b *bridgeChannel) serve(ctx context.Context, proxy Bridge) {
	defer func() { _ = b.ours.Close() }()
	c, err := net.FileConn(b.ours)
	if err != nil {
		return
	}
	defer func() { _ = c.Close() }()
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return
	}
	ln, err := bridge.ReceiveListener(ctx, uc)
	if err != nil {
		return
	}
	_ = proxy.Serve(ctx, ln)
}

// egressAttempts is namespaceAttempts for a plan: one whose network goes
// through the egress proxy gets only setups with a network namespace and
// a user namespace (the helper needs CAP_NET_ADMIN over the namespace to
// bring its loopback up, which a root docket's narrowed helper lacks), and
// no weaker fallback: without them the command would have the host's
// network or none.
func egressAttempts(c Capabilities, plan events.SandboxPlan) []proto.Namespaces {
	if !plan.Egress {
		list := namespaceAttempts(c, plan.Network)
		if len(plan.Hidden) > 0 {
			// Hidden paths are mounts: no mount namespace, no run.
			var withMount []proto.Namespaces
			for _, ns := range list {
				if ns.Mount {
					withMount = append(withMount, ns)
				}
			}
			return withMount
		}
		return list
	}
	if !c.UserNamespaces {
		return nil
	}
	return []proto.Namespaces{{User: true, Mount: true, PID: true, Net: true, IPC: true, UTS: true}}
}

// startBridge passes the helper its end of the bridge channel (the next
// extra descriptor) and serves what comes back until the returned stop.
func startBridge(ctx context.Context, req Request, spec *Spec, extra *[]*os.File) (func(), error) {
	ch, err := newBridgeChannel()
	if err != nil {
		return nil, err
	}
	*extra = append(*extra, ch.theirs)
	spec.BridgeFD = 2 + len(*extra)
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ch.serve(bctx, req.Bridge)
	}()
	return func() { cancel(); <-done }, nil
}
