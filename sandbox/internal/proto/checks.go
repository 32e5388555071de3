package proto

import (
	"errors"
	"path/filepath"
)

// checkBridge refuses a bridge the helper could not build safely: one
// outside a network namespace of its own would listen on the host's
// loopback, and its channel must follow the protocol's descriptors.
func (s Spec) checkBridge() error {
	switch {
	case !s.Bridge && s.BridgeFD == 0:
		return nil
	case !s.Bridge || s.BridgeFD <= BinaryFD:
		return errors.New("bridge: bad descriptor")
	case !s.NS.Net || !s.NS.User || s.Network:
		return errors.New("bridge: needs its own network and user namespaces, with the direct network off")
	case s.Server:
		return errors.New("bridge: not for a sandbox server")
	}
	return nil
}

// checkHidden refuses hidden paths the helper cannot cover: they must be
// absolute and clean, and covering needs a mount namespace.
func (s Spec) checkHidden() error {
	if len(s.Hidden) == 0 {
		return nil
	}
	if !s.NS.Mount {
		return errors.New("hidden paths need a mount namespace")
	}
	for _, p := range s.Hidden {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p || p == "/" {
			return errors.New("hidden path " + p + ": not an absolute, clean path below /")
		}
	}
	return nil
}
