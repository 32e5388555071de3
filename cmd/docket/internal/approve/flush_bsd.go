//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package approve

import "golang.org/x/sys/unix"

// fread is <sys/fcntl.h>'s FREAD: TIOCFLUSH's "the input queue".
const fread = 0x1

// flushInput drops what the terminal on fd received but nobody read yet.
func flushInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }
