package sandboxd

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// SocketPath is where the daemon of the docket-core binary at core
// listens for this user: in $XDG_RUNTIME_DIR/docket, else in
// /tmp/docket-UID, named after that very binary (path, device, inode,
// size, change time), so a rebuilt docket-core gets a daemon of its own
// and the old one idles out. The directory is made 0700 and must be the
// user's own, not a link.
func SocketPath(core string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(core, &st); err != nil {
		return "", fmt.Errorf("sandbox daemon: %s: %w", core, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\x00%d.%d", core, st.Dev, st.Ino, st.Size, st.Ctim.Sec, st.Ctim.Nsec)
	dir, err := runtimeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "sandbox-"+hex.EncodeToString(h.Sum(nil))[:16]+".sock"), nil
}

func runtimeDir() (string, error) {
	uid := os.Getuid()
	dir := filepath.Join(os.TempDir(), "docket-"+strconv.Itoa(uid))
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		dir = filepath.Join(x, "docket")
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", fmt.Errorf("sandbox daemon: %w", err)
	}
	// Another user may have made it first, in a shared /tmp: then it is not
	// ours to listen or connect in.
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return "", fmt.Errorf("sandbox daemon: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != uid || st.Mode&0o077 != 0 {
		return "", fmt.Errorf("sandbox daemon: %s is not a directory of uid %d with mode 0700", dir, uid)
	}
	return dir, nil
}
