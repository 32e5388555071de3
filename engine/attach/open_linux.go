package attach

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel below the directory root and refuses, in the
// kernel and atomically, any path that leaves it (openat2's
// RESOLVE_BENEATH): a symlink swapped in after resolve checked the path
// cannot lead the read outside. Kernels before 5.6 lack openat2; there the
// check resolve made is all there is.
func openBeneath(root, rel string) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer func() { _ = unix.Close(dir) }() // an O_PATH descriptor
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS})
	switch {
	case errors.Is(err, unix.ENOSYS):
		return os.Open(root + "/" + rel)
	case errors.Is(err, unix.EXDEV):
		return nil, ErrOutside
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), root+"/"+rel), nil
}
