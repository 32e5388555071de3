package stubs

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A stub docket made is removed by the last run that holds it. A
// docket killed meanwhile (kill -9, power loss) leaves it in the project: an
// empty read-only directory where the user expects none. The next start
// removes it, but only what docket itself made: an empty 0555 directory
// is not proof, since a command could make one anywhere to have a later
// start delete it (the user's own empty 0555 directory, or one under which
// the user is about to put data). So each stub is recorded, when it
// is created, in a directory no sandboxed command can write, with the
// identity (device and inode) of the directory made; a record that no
// longer names that very directory, still empty and still 0555, is
// dropped without touching the path.

// stubRecord is one recorded stub, one JSON file per path.
type stubRecord struct {
	Path string `json:"path"`
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
	// Birth is the directory's creation time (ns) where the file system
	// keeps one: a freed inode number is soon reused by a new directory.
	Birth int64 `json:"birth,omitempty"`
}

// identity reads what a record compares: device, inode and birth time.
func identity(fd int, path string, flags int) (dev, ino uint64, birth int64, err error) {
	var sx unix.Statx_t
	if err := unix.Statx(fd, path, flags|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &sx); err != nil {
		return 0, 0, 0, err
	}
	if sx.Mask&unix.STATX_BTIME != 0 {
		birth = sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
	}
	return unix.Mkdev(sx.Dev_major, sx.Dev_minor), sx.Ino, birth, nil
}

// maxRecords bounds how many records one start looks at.
const maxRecords = 10000

// recordFile names the record of path: one per path, so the newest
// stub made there replaces an older record.
func recordFile(records, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(records, hex.EncodeToString(sum[:16])+".json")
}

// recordStub records the directory just made at path, in the
// file named after path (a newer stub's record replaces an older
// one's).
func recordStub(records, path string) error {
	if records == "" {
		return nil
	}
	rec, err := identify(path)
	if err != nil {
		return err
	}
	return writeRecord(records, recordFile(records, path), rec)
}

// recordCall records, in one file of the call's own, the directories a
// call just made: one file per call rather than one per stub,
// since making, renaming and removing each record file was most of a
// stub's cost (about 0.5 ms each here). It returns the file, to
// drop once the call removed them all; "" when nothing was recorded.
func recordCall(records string, paths []string) (string, []stubRecord, error) {
	if records == "" || len(paths) == 0 {
		return "", nil, nil
	}
	recs := make([]stubRecord, 0, len(paths))
	for _, p := range paths {
		rec, err := identify(p)
		if err != nil {
			continue // gone already (another run's release): nothing to record
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return "", nil, nil
	}
	var name [8]byte
	if _, err := rand.Read(name[:]); err != nil {
		return "", nil, fmt.Errorf("recording stubs: %w", err)
	}
	file := filepath.Join(records, "call-"+hex.EncodeToString(name[:])+".json")
	if err := writeRecord(records, file, recs); err != nil {
		return "", nil, err
	}
	return file, recs, nil
}

// stillThere reports whether rec's path is still the very directory
// recorded: a record of a path that is gone, or is another directory now,
// has done its work.
func stillThere(rec stubRecord) bool {
	dev, ino, birth, err := identity(unix.AT_FDCWD, rec.Path, 0)
	return err == nil && dev == rec.Dev && ino == rec.Ino && birth == rec.Birth
}

// identify reads what a record of the directory at path holds.
func identify(path string) (stubRecord, error) {
	dev, ino, birth, err := identity(unix.AT_FDCWD, path, 0)
	if err != nil {
		return stubRecord{}, fmt.Errorf("recording stub %s: %w", path, err)
	}
	return stubRecord{Path: path, Dev: dev, Ino: ino, Birth: birth}, nil
}

// writeRecord writes v as file, whole or not at all (a temporary file
// renamed into place: a start reading records meanwhile never sees half
// of one).
func writeRecord(records, file string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("recording stubs in %s: %w", file, err)
	}
	if err := os.MkdirAll(records, 0o700); err != nil {
		return fmt.Errorf("recording stubs: %w", err)
	}
	f, err := os.CreateTemp(records, ".rec-*")
	if err != nil {
		return fmt.Errorf("recording stubs: %w", err)
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name()) // a partial temporary record: nothing to keep
		return fmt.Errorf("recording stubs in %s: %w", file, err)
	}
	if err := os.Rename(f.Name(), file); err != nil {
		_ = os.Remove(f.Name()) // never renamed into place: nothing to keep
		return fmt.Errorf("recording stubs in %s: %w", file, err)
	}
	return nil
}

// forgetStub drops the record of path if it names the directory
// described by removed (just removed); a newer stub's record stays.
func forgetStub(records, path string, removed os.FileInfo) {
	if records == "" || removed == nil {
		return
	}
	rec, err := readRecord(recordFile(records, path))
	if err != nil {
		return
	}
	if st, ok := removed.Sys().(*syscall.Stat_t); ok && rec.Dev == uint64(st.Dev) && rec.Ino == st.Ino {
		_ = os.Remove(recordFile(records, path)) // a record of a directory now gone: a stale one is dropped by the next start anyway
	}
}

func readRecord(file string) (stubRecord, error) {
	recs, batch, err := readRecords(file)
	if err == nil && batch {
		err = fmt.Errorf("stub record %s: a call's list, not one record", file)
	}
	if err != nil {
		return stubRecord{}, err
	}
	return recs[0], nil
}

// readRecords reads a record file: one record (a path's file), or a
// call's list (batch).
func readRecords(file string) (recs []stubRecord, batch bool, err error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	if t := strings.TrimSpace(string(b)); strings.HasPrefix(t, "[") {
		batch = true
		err = json.Unmarshal(b, &recs)
	} else {
		var rec stubRecord
		err = json.Unmarshal(b, &rec)
		recs = []stubRecord{rec}
	}
	if err != nil {
		return nil, batch, fmt.Errorf("stub record %s: %w", file, err)
	}
	if batch && len(recs) == 0 {
		return nil, batch, fmt.Errorf("stub record %s: an empty list", file)
	}
	for _, rec := range recs {
		if !filepath.IsAbs(rec.Path) {
			return nil, batch, fmt.Errorf("stub record %s: path %q is not absolute", file, rec.Path)
		}
	}
	return recs, batch, nil
}

// RemoveLeft removes the stub directories recorded under
// records that no run holds any more: those a killed docket left, wherever
// they are (the workspace, an --add-dir root, beside docket's binary, /tmp).
// A stub is removed only while it is still the very directory
// recorded, empty, mode 0555, and unlocked (a live run holds a shared lock
// on every stub it uses); a record that no longer matches is
// dropped and its path left alone. The record is the proof, not the place:
// a start in one workspace cleans what a killed run left in another. It
// returns the directories removed; the error joins what could not be read
// or removed.
func RemoveLeft(records string) ([]string, error) {
	if records == "" {
		return nil, nil
	}
	d, err := os.Open(records)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stub records: %w", err)
	}
	names, err := d.Readdirnames(maxRecords)
	_ = d.Close() // a directory opened for reading: nothing to flush
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("stub records %s: %w", records, err)
	}
	var removed []string
	var errs []error
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		file := filepath.Join(records, name)
		recs, batch, err := readRecords(file)
		if err != nil {
			// A record docket cannot read names nothing it may remove.
			errs = append(errs, err)
			_ = os.Remove(file) // unreadable: keeping it would only repeat the error
			continue
		}
		done := true // every path of the file is gone or no longer ours
		for _, rec := range recs {
			res, err := removeIfLeft(rec)
			if err != nil {
				errs = append(errs, err)
				done = false
				continue
			}
			switch res {
			case leftHeld:
				done = false // a live session's: it removes it, or a later start does
			case leftRemoved:
				removed = append(removed, rec.Path)
			}
		}
		if !done {
			continue
		}
		// The record has done its work. A path's own file may meanwhile
		// name a new stub there; a call's file is its alone.
		if !batch {
			if now, err := readRecord(file); err != nil || now != recs[0] {
				continue
			}
		}
		_ = os.Remove(file) // a stale record is dropped by the next start anyway
	}
	return removed, errors.Join(errs...)
}

// leftResult is what removeIfLeft found.
type leftResult int

const (
	leftNotOurs leftResult = iota // gone, changed, or not empty: the path is left alone
	leftHeld                      // a running session holds it
	leftRemoved                   // removed
)

// removeIfLeft removes rec's directory if it is still the stub made
// and nobody holds it.
func removeIfLeft(rec stubRecord) (leftResult, error) {
	f, err := os.OpenFile(rec.Path, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return leftNotOurs, nil // gone, a symlink, not a directory: not ours any more
	}
	defer func() { _ = f.Close() }() // a directory fd, read-only: closing also drops the lock
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&0o777 != Mode {
		return leftNotOurs, nil
	}
	dev, ino, birth, err := identity(int(f.Fd()), "", unix.AT_EMPTY_PATH)
	if err != nil || dev != rec.Dev || ino != rec.Ino || birth != rec.Birth {
		return leftNotOurs, nil
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return leftHeld, nil
	}
	if same, _ := sameFile(f, rec.Path); !same {
		return leftNotOurs, nil
	}
	if names, err := f.Readdirnames(1); len(names) > 0 || !errors.Is(err, io.EOF) {
		return leftNotOurs, nil // not empty (or unreadable): never removed
	}
	if err := unix.Rmdir(rec.Path); err != nil {
		return leftNotOurs, fmt.Errorf("removing stub %s: %w", rec.Path, err)
	}
	return leftRemoved, nil
}

// recordedAnywhere reports whether a record under records (a path's own,
// or a call's) names the very directory open at f: one another docket run
// made. Only a run that did not make a stub asks, when it is the
// last one out, so the records are read rarely; there are few (one per
// running call, and the left ones the next start removes).
func recordedAnywhere(records string, f *os.File) bool {
	if records == "" {
		return false
	}
	dev, ino, birth, err := identity(int(f.Fd()), "", unix.AT_EMPTY_PATH)
	if err != nil {
		return false
	}
	d, err := os.Open(records)
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(maxRecords)
	_ = d.Close() // a directory opened for reading: nothing to flush
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		recs, _, err := readRecords(filepath.Join(records, name))
		if err != nil {
			continue
		}
		for _, rec := range recs {
			if rec.Dev == dev && rec.Ino == ino && rec.Birth == birth {
				return true
			}
		}
	}
	return false
}
