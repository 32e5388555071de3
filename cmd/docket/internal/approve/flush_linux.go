package approve

import "golang.org/x/sys/unix"

// flushInput drops what the terminal on fd received but nobody read yet.
func flushInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
