package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/docket-engine/docket/events"
	"golang.org/x/sys/unix"
)

// openHelperBinary returns a descriptor of the helper binary at path for
// one call, which the caller closes. The parent execs the helper through it
// (/proc/self/fd), and the first stage re-execs the init stage through it,
// so the program that runs is the file opened here, whatever happens to the
// path. With caps' cache, the file is opened once per Capabilities.
func openHelperBinary(caps *Capabilities, path string) (*os.File, error) {
	if caps == nil || caps.binaries == nil {
		return openExecutable(path)
	}
	c := caps.binaries
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.files[path]
	if !ok {
		var err error
		if f, err = openExecutable(path); err != nil {
			return nil, err
		}
		if c.files == nil {
			c.files = map[string]*os.File{}
		}
		c.files[path] = f
	}
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("sandbox: helper binary %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openExecutable opens path for exec and checks that it is an executable
// regular file.
func openExecutable(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: opening the helper binary: %w", err)
	}
	st, err := f.Stat()
	if err == nil && (!st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0) {
		err = fmt.Errorf("%s is not an executable file", path)
	}
	if err != nil {
		_ = f.Close() // read-only: nothing to flush, and Linux frees the fd even when close fails; the check's error is what to report
		return nil, fmt.Errorf("sandbox: helper binary: %w", err)
	}
	return f, nil
}

// docketBinaries lists docket's own executables that lie under a writable
// root, by real path: the helper, the running executable exe, and the lean
// helper next to it (which DefaultHelperPath would pick). They must never
// be writable from inside, or a command could replace what the next call
// trusts to confine it. absent is the lean helper's path when it does not
// exist but its directory is writable: a command could plant one there for
// the next docket to pick, so the caller protects that path as well (a
// stub bound read-only for the call).
func docketBinaries(helper, exe string, writable []string) (present, absent []string) {
	candidates := []string{helper}
	if exe != "" {
		candidates = append(candidates, exe)
		if realExe, err := filepath.EvalSymlinks(exe); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(realExe), HelperName))
		}
	}
	for _, c := range candidates {
		real, err := filepath.EvalSymlinks(c)
		if errors.Is(err, fs.ErrNotExist) && events.WithinAny(c, writable) && !slices.Contains(absent, c) {
			absent = append(absent, c)
			continue
		}
		if err != nil || !events.WithinAny(real, writable) {
			continue
		}
		// A directory where a binary would be is another run's stub
		// for an absent lean helper: it goes away when that run ends, so
		// this run holds it too (a shared lock keeps it) rather than bind
		// it as a binary and find it gone.
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			if !slices.Contains(absent, c) {
				absent = append(absent, c)
			}
			continue
		}
		if !slices.Contains(present, real) {
			present = append(present, real)
		}
	}
	return present, absent
}
