package journal

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errLocked says another process holds the file's lock.
var errLocked = errors.New("locked by another process")

// lockRetry is how often lockFile tries again, as bbolt does.
const lockRetry = 50 * time.Millisecond

// lockFile opens path and takes its flock (shared for a reader, exclusive
// for a writer) within LockTimeout. The lock comes before anything reads the
// file, so a writer's half-done commit is never mistaken for damage; bbolt
// then opens the same descriptor, where taking the lock again is a no-op.
func lockFile(path string, readOnly bool) (*os.File, error) {
	flag, how := os.O_RDWR, syscall.LOCK_EX
	if readOnly {
		flag, how = os.O_RDONLY, syscall.LOCK_SH
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, err
	}
	if err := flockWithin(f, how); err != nil {
		_ = f.Close() // not locked, nothing written
		return nil, err
	}
	return f, nil
}

// flockWithin takes f's flock (how: LOCK_SH or LOCK_EX) within
// LockTimeout, or returns errLocked.
func flockWithin(f *os.File, how int) error {
	deadline := time.Now().Add(LockTimeout)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return err
		case time.Now().After(deadline):
			return errLocked
		}
		time.Sleep(lockRetry)
	}
}
