package confine

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/docket-engine/docket/sandbox/bridge"
)

// sendBridgeListener runs in the helper, inside the command's network
// namespace and before it drops its capabilities: lo up, the listener,
// handed to docket on fd; the helper keeps no copy.
func sendBridgeListener(fd int) error {
	f, err := bridge.ListenLoopbackHere(bridge.Port)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	chf := os.NewFile(uintptr(fd), "bridge")
	c, err := net.FileConn(chf)
	_ = chf.Close()
	if err != nil {
		return fmt.Errorf("bridge channel: %w", err)
	}
	defer func() { _ = c.Close() }()
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return errors.New("bridge channel is not a unix socket")
	}
	return bridge.SendListener(uc, f)
}
