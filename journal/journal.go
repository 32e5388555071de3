package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/internal/boltfile"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

var (
	bucketRecords = []byte("records")
	bucketCalls   = []byte("calls")
	bucketMeta    = []byte("meta")
	keySessionID  = []byte("session_id")
	keyFormat     = []byte("format")
	// keyCommitted holds the last committed seq, written in the same
	// transaction as the records: a damaged page that silently drops the
	// tail of the records tree (a leaf's count, say) is then noticed.
	keyCommitted = []byte("committed_seq")
)

// formatPrefix starts the meta bucket's format value; the format version
// follows it in decimal.
const formatPrefix = "docket-journal/"

// LockTimeout is how long Open waits for another process to let go of a
// session before it reports InUseError.
const LockTimeout = time.Second

// Journal is one session's open journal file. It is safe for concurrent use.
type Journal struct {
	path      string
	sessionID string
	db        *bolt.DB
	readOnly  bool
	// damage is what open found wrong with the meta pages; nil if nothing.
	damage *DamageReport
	// lazy checks, for a reader, the leaf pages open did not read, before
	// bbolt reads them; nil for a writer, whose open checked every page.
	lazy *boltfile.Lazy

	mu        sync.Mutex
	next      uint64 // seq the next Append gets
	committed uint64 // the last seq known durable
	pending   []events.Record
	commits   atomic.Uint64
}

// Create makes a new journal for session id under home and opens it for
// writing. It fails if the file already exists.
func Create(home, id string, started time.Time) (*Journal, error) {
	path := SessionPath(home, id, started)
	dirty, err := makeDirs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("create journal %s: already exists", path)
	}
	j, err := open(path, id, false, true, nil)
	if err != nil {
		return nil, err
	}
	// The file's first commit is durable, but its name is not until the
	// directories holding it are: without this a power cut early in a
	// session can lose the whole file, write-ahead records and all.
	if err := syncDirs(dirty); err != nil {
		_ = j.Abandon() // nothing is buffered yet: the sync error is the one to report
		return nil, fmt.Errorf("create journal %s: %w", path, err)
	}
	return j, nil
}

// Open opens an existing journal for appending (to resume its session).
func Open(path string) (*Journal, error) {
	return open(path, idFromPath(path), false, false, nil)
}

// OpenReadOnly opens an existing journal for reading. It shares the file
// with other readers but not with a writer.
func OpenReadOnly(path string) (*Journal, error) {
	return open(path, idFromPath(path), true, false, nil)
}

func idFromPath(path string) string { return strings.TrimSuffix(filepath.Base(path), Ext) }

func lockPath(path string) string { return path + ".pid" }

// open opens (or, with create, creates) the journal at path. held, only
// with create, is the file already open and locked at path, empty, for
// bbolt to make the journal in (Remake); nil otherwise.
func open(path, id string, readOnly, create bool, held *os.File) (j *Journal, err error) {
	if !create {
		if err := checkFile(path); err != nil {
			return nil, err
		}
	}
	file := held
	var metas [2]boltfile.MetaState
	var lazy *boltfile.Lazy
	if !create {
		if file, err = lockFile(path, readOnly); err != nil {
			if errors.Is(err, errLocked) {
				return nil, &InUseError{SessionID: id, Path: path, PID: readPID(path)}
			}
			return nil, fmt.Errorf("open journal: %w", err)
		}
		if lazy, err = boltfile.Check(file, !readOnly); err != nil {
			_ = file.Close() // read-only use so far; the preflight error is the one to report
			return nil, damagedOrForeign(path, err)
		}
		defer func() {
			if err != nil {
				_ = lazy.Close() // read-only; the open's error is the one to report
			}
		}()
		if ps, err := boltfile.PageSizeOf(file); err == nil {
			metas = boltfile.Metas(file, ps)
		}
	}
	opts := &bolt.Options{Timeout: LockTimeout, ReadOnly: readOnly, FreelistType: bolt.FreelistMapType}
	db, err := safeOpen(path, opts, file)
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, &InUseError{SessionID: id, Path: path, PID: readPID(path)}
		}
		return nil, damagedOrForeign(path, err)
	}
	j = &Journal{path: path, sessionID: id, db: db, readOnly: readOnly, next: 1, lazy: lazy}
	defer func() {
		if err != nil {
			_ = db.Close() // nothing was written yet; err says why the open failed
		}
	}()
	if create {
		err = db.Update(func(tx *bolt.Tx) error {
			for _, b := range [][]byte{bucketRecords, bucketCalls, bucketMeta} {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return err
				}
			}
			m := tx.Bucket(bucketMeta)
			if err := m.Put(keyFormat, []byte(formatPrefix+strconv.Itoa(events.FormatVersion))); err != nil {
				return err
			}
			return m.Put(keySessionID, []byte(id))
		})
		if err != nil {
			return nil, fmt.Errorf("initialise journal %s: %w", path, err)
		}
		j.commits.Add(1)
	} else {
		if err := j.check(); err != nil {
			var nv *events.NewerVersionError
			if errors.As(err, &nv) {
				return nil, err
			}
			// A damaged root page can hide the buckets of a real journal.
			return nil, damagedOrForeign(path, err)
		}
		if err := checkIdentity(path, id, j.sessionID); err != nil {
			if j.firstRecordSessionID() == id {
				// The id is kept twice: the session_started record agrees
				// with the name, so the meta bucket's copy is damaged; the
				// file was not replaced.
				return nil, damagedOrForeign(path, fmt.Errorf("the meta bucket's session id %q is damaged: the file's name and its first record say %s", j.sessionID, id))
			}
			return nil, err
		}
		if metas[0].Valid != metas[1].Valid {
			if j.damage, err = j.lookForLostCommit(metas); err != nil {
				return nil, err
			}
			if j.damage.Lost != nil && !readOnly {
				if err := j.recoverLostCommit(); err != nil {
					return nil, err
				}
			}
		}
	}
	if !readOnly {
		_ = os.WriteFile(lockPath(path), []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	return j, nil
}

// checkFile rejects what bbolt would misreport: a directory, an empty file.
func checkFile(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("open journal: %w", err)
	}
	if info.IsDir() {
		return &NotJournalError{Path: path, Reason: "it is a directory"}
	}
	if info.Size() == 0 {
		return &NotJournalError{Path: path, Reason: "the file is empty"}
	}
	return nil
}

// safeOpen opens bbolt on file (already open and locked), or on path when
// file is nil, turning a panic or fault on a damaged file into an error. A
// panic leaves bbolt's file open and locked, so safeOpen keeps its own hold
// on the file to close it: otherwise the lock would make every later open of
// the path in this process report the session in use.
func safeOpen(path string, opts *bolt.Options, file *os.File) (db *bolt.DB, err error) {
	o := *opts
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		if file != nil {
			return file, nil
		}
		f, err := os.OpenFile(name, flag, perm)
		file = f
		return f, err
	}
	err = guard(func() error {
		var e error
		db, e = bolt.Open(path, 0o600, &o)
		return e
	})
	if db == nil && file != nil {
		_ = file.Close() // a second close after bbolt's own is harmless
	}
	return db, err
}

// damagedOrForeign explains why bbolt could not open path: when intact
// records can still be salvaged from it, the file is a damaged journal;
// otherwise it is not a journal at all.
func damagedOrForeign(path string, cause error) error {
	found, err := boltfile.Salvage(path)
	if err != nil || len(found) == 0 {
		var nj *NotJournalError
		if errors.As(cause, &nj) {
			return nj
		}
		return &NotJournalError{Path: path, Reason: fmt.Sprintf("no docket records can be read from it (%v)", cause)}
	}
	last := uint64(0)
	for found[last+1].Seq == last+1 {
		last++
	}
	return &DamagedError{Path: path, LastGoodSeq: last, Err: cause, salvaged: found}
}

// afterEveryKey sorts after every key of the records bucket (8 bytes): a
// range starting there is the bucket's last leaf.
var afterEveryKey = bytes.Repeat([]byte{0xff}, 9)

// check verifies the meta bucket and finds the next seq.
func (j *Journal) check() error {
	return guard(func() error {
		return j.db.View(func(tx *bolt.Tx) error {
			if err := j.lazy.Ensure(string(bucketMeta), nil, nil); err != nil {
				return err
			}
			m := tx.Bucket(bucketMeta)
			if m == nil {
				return &NotJournalError{Path: j.path, Reason: "it is a bbolt database without Docket's meta bucket"}
			}
			if err := checkFormat(j.path, m.Get(keyFormat)); err != nil {
				return err
			}
			if id := m.Get(keySessionID); len(id) > 0 {
				j.sessionID = string(id)
			}
			rb := tx.Bucket(bucketRecords)
			if rb == nil {
				return &NotJournalError{Path: j.path, Reason: "it has no records bucket"}
			}
			if err := j.lazy.Ensure(string(bucketRecords), afterEveryKey, nil); err != nil {
				return err
			}
			if err := j.lazy.Ensure(string(bucketRecords), seqKey(1), seqKey(1)); err != nil {
				return err
			}
			if k, _ := rb.Cursor().Last(); len(k) == 8 {
				j.committed = binary.BigEndian.Uint64(k)
			} else if k != nil {
				// Appending after an unreadable last key could reuse a seq.
				return fmt.Errorf("the last record key is %d bytes, not 8", len(k))
			}
			last := j.committed
			if v := m.Get(keyCommitted); len(v) == 8 {
				j.committed = binary.BigEndian.Uint64(v)
			}
			j.next = max(last, j.committed) + 1
			// The session_started record carries the version its records
			// were written in; refuse early rather than misread them later.
			if v := rb.Get(seqKey(1)); v != nil {
				if r, err := events.Unmarshal(bytes.Clone(v)); err == nil && r.Kind == events.KindSessionStarted {
					var nv *events.NewerVersionError
					if _, err := r.Decode(); errors.As(err, &nv) {
						return fmt.Errorf("journal %s: %w", j.path, err)
					}
				}
			}
			return nil
		})
	})
}

// checkFormat accepts the meta bucket's format value of any version this
// build can read.
func checkFormat(path string, format []byte) error {
	rest, ok := strings.CutPrefix(string(format), formatPrefix)
	v, err := strconv.ParseUint(rest, 10, 32)
	if !ok || err != nil || v == 0 {
		return &NotJournalError{Path: path, Reason: fmt.Sprintf("its format marker is %q, not %q", format, formatPrefix+"N")}
	}
	if v > events.FormatVersion {
		return fmt.Errorf("journal %s: %w", path, &events.NewerVersionError{Version: uint32(v)})
	}
	return nil
}

// readPID returns the pid the last writer recorded, or 0 when that process
// is gone: a writer killed with -9 leaves its pid file behind, and then the
// holder is someone else (a reader, typically).
func readPID(path string) int {
	b, err := os.ReadFile(lockPath(path))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return 0
	}
	return pid
}

// Path returns the journal's file path.
func (j *Journal) Path() string { return j.path }

// SessionID returns the session id recorded in the file.
func (j *Journal) SessionID() string { return j.sessionID }

// Commits returns how many durable commits this handle has made.
func (j *Journal) Commits() uint64 { return j.commits.Load() }

// NextSeq returns the seq the next Append will get.
func (j *Journal) NextSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next
}

// Pending returns how many appended records await a commit.
func (j *Journal) Pending() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.pending)
}

// Append encodes body as the record with the next seq and buffers it. It
// is not durable until a Commit that starts after it returns nil. A body
// that is no record kind, or a read-only journal, is an error and takes no
// seq.
func (j *Journal) Append(at time.Time, callID string, body any) (events.Record, error) {
	if j.readOnly {
		return events.Record{}, fmt.Errorf("journal %s is open read-only", j.path)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	r, err := events.NewRecord(j.next, at.UnixNano(), callID, body)
	if err != nil {
		return events.Record{}, err
	}
	j.pending = append(j.pending, r)
	j.next++
	return r, nil
}

// Commit makes every buffered record durable in one bbolt Update (one
// fsync). With nothing buffered it does nothing and counts nothing. On
// error the records stay buffered, and a later Commit retries them.
func (j *Journal) Commit() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.pending) == 0 {
		return nil
	}
	last := j.pending[len(j.pending)-1].Seq
	// bbolt rolls the transaction back if it panics on a damaged page; guard
	// turns the panic into an error, leaving the records pending.
	err := guard(func() error { return j.db.Update(j.write(last)) })
	if err != nil {
		return fmt.Errorf("commit journal %s: %w", j.path, err)
	}
	j.pending = j.pending[:0]
	j.committed = last
	j.commits.Add(1)
	return nil
}

// write returns the transaction that stores the pending records, their call
// index entries and the committed seq.
func (j *Journal) write(last uint64) func(*bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		rb, cb := tx.Bucket(bucketRecords), tx.Bucket(bucketCalls)
		if err := tx.Bucket(bucketMeta).Put(keyCommitted, seqKey(last)); err != nil {
			return err
		}
		rb.FillPercent = 1.0 // keys only ever grow: pack pages full
		for _, r := range j.pending {
			b, err := r.Marshal()
			if err != nil {
				return err
			}
			if err := rb.Put(seqKey(r.Seq), b); err != nil {
				return err
			}
			if r.CallID != "" {
				if err := cb.Put(callKey(r.CallID, r.Seq), nil); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// AppendDurable appends a record and commits it with everything buffered.
func (j *Journal) AppendDurable(at time.Time, callID string, body any) (events.Record, error) {
	r, err := j.Append(at, callID, body)
	if err != nil {
		return r, err
	}
	return r, j.Commit()
}

// Close commits what is buffered and closes the file.
func (j *Journal) Close() error {
	var err error
	if !j.readOnly {
		err = j.Commit()
		// The pid file only names the holder in "in use" errors, and the
		// flock (not the file) is the lock: a leftover one is harmless.
		_ = os.Remove(lockPath(j.path))
	}
	return errors.Join(err, j.db.Close(), j.lazy.Close())
}

// Abandon closes the file without committing buffered records, as a crash
// would: the buffered records are lost. Tests use it.
func (j *Journal) Abandon() error {
	j.mu.Lock()
	j.pending = nil
	j.mu.Unlock()
	if !j.readOnly {
		_ = os.Remove(lockPath(j.path)) // harmless if left: see Close
	}
	return errors.Join(j.db.Close(), j.lazy.Close())
}

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

func callKey(callID string, seq uint64) []byte {
	k := make([]byte, 0, len(callID)+9)
	k = append(k, callID...)
	k = append(k, 0)
	return append(k, seqKey(seq)...)
}
