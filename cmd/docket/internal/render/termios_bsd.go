//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package render

import "golang.org/x/sys/unix"

// ioctlGetTermios is the request that reads a terminal's settings; its name
// differs between Linux and the BSDs.
const ioctlGetTermios = unix.TIOCGETA
