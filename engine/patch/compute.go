package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// FS is the read side of a file system: what Compute needs to verify a patch.
// Names are absolute paths; Stat follows symbolic links.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
}

// OSFS is the operating system's file system.
type OSFS struct{}

// Stat calls os.Stat.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// ReadFile calls os.ReadFile.
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// Result is a verified patch: every operation with its absolute paths and the
// file contents before and after, ready for Apply.
type Result struct {
	Workdir string
	Changes []FileChange // in patch order
}

// FileChange is one verified operation.
type FileChange struct {
	Kind        ChangeKind
	Path        string      // absolute, cleaned
	MovePath    string      // absolute, cleaned; Update with a move only
	Display     string      // Path as written in the patch, for the summary
	DisplayMove string      // MovePath as written in the patch
	Old         []byte      // content before the change; nil for Add
	New         []byte      // content after the change; nil for Delete
	Perm        fs.FileMode // permission bits to write New with
}

// defaultPerm is the permission of files the patch creates.
const defaultPerm fs.FileMode = 0o644

// ErrParentNotDir is the cause when a file would be created under a path
// component that is not a directory.
var ErrParentNotDir = errors.New("a parent path is not a directory")

// Compute verifies every operation of p against the files under workdir, read
// through fsys, and returns the new contents without writing anything. Each
// operation sees the effect of the ones before it, so a patch may delete and
// re-add a file, or add then update it. Errors are *FileError or *HunkError.
func Compute(p *Patch, workdir string, fsys FS) (*Result, error) {
	if p == nil || len(p.Ops) == 0 {
		return nil, errors.New("apply_patch: the patch has no file operations")
	}
	if !filepath.IsAbs(workdir) {
		return nil, fmt.Errorf("apply_patch: workdir %q is not an absolute path", workdir)
	}
	workdir = filepath.Clean(workdir)
	c := &computer{fs: fsys, workdir: workdir, state: map[string]*entry{}}
	res := &Result{Workdir: workdir, Changes: make([]FileChange, 0, len(p.Ops))}
	for _, op := range p.Ops {
		fc, err := c.op(op)
		if err != nil {
			return nil, err
		}
		res.Changes = append(res.Changes, fc)
	}
	return res, nil
}

// entry is what Compute knows about a path, from disk or from an earlier
// operation of the same patch.
type entry struct {
	exists  bool
	regular bool
	dir     bool
	perm    fs.FileMode
	data    []byte
	loaded  bool
}

type computer struct {
	fs      FS
	workdir string
	state   map[string]*entry
}

func (c *computer) op(op Op) (FileChange, error) {
	workdir := c.workdir
	fc := FileChange{Kind: op.Kind, Path: resolve(workdir, op.Path), Display: op.Path}
	fail := func(err error) (FileChange, error) {
		return FileChange{}, &FileError{Kind: op.Kind, Path: op.Path, Line: op.Line, Err: err}
	}
	switch op.Kind {
	case KindAdd:
		if err := c.creatable(fc.Path); err != nil {
			if errors.Is(err, ErrExists) {
				err = fmt.Errorf("%w; to replace it, use Update File, or Delete File it first", err)
			}
			return fail(err)
		}
		fc.New, fc.Perm = []byte(op.Contents), defaultPerm
		c.state[fc.Path] = &entry{exists: true, regular: true, perm: fc.Perm, data: fc.New, loaded: true}
	case KindDelete:
		e, err := c.file(fc.Path, false)
		if err != nil {
			return fail(err)
		}
		fc.Old, fc.Perm = e.data, e.perm
		c.state[fc.Path] = &entry{}
	case KindUpdate:
		e, err := c.file(fc.Path, true)
		if err != nil {
			return fail(err)
		}
		fc.Old, fc.Perm = e.data, e.perm
		fc.New, err = applyHunks(op, string(e.data))
		if err != nil {
			return FileChange{}, err
		}
		dest := fc.Path
		if op.MovePath != "" && resolve(workdir, op.MovePath) != fc.Path {
			dest = resolve(workdir, op.MovePath)
			if err := c.creatable(dest); err != nil {
				return fail(fmt.Errorf("move destination %s: %w", op.MovePath, err))
			}
			fc.MovePath, fc.DisplayMove = dest, op.MovePath
			c.state[fc.Path] = &entry{}
		}
		c.state[dest] = &entry{exists: true, regular: true, perm: fc.Perm, data: fc.New, loaded: true}
	default:
		return fail(fmt.Errorf("unknown operation kind %q", op.Kind))
	}
	return fc, nil
}

// lookup returns what is at path, without reading its content.
func (c *computer) lookup(path string) (*entry, error) {
	if e, ok := c.state[path]; ok {
		return e, nil
	}
	e := &entry{}
	fi, err := c.fs.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
	case err != nil:
		return nil, err
	default:
		e.exists, e.regular, e.dir, e.perm = true, fi.Mode().IsRegular(), fi.IsDir(), fi.Mode().Perm()
	}
	c.state[path] = e
	return e, nil
}

// file returns the regular file at path with its content; text requires the
// content to be UTF-8 without NUL bytes.
func (c *computer) file(path string, text bool) (*entry, error) {
	e, err := c.lookup(path)
	if err != nil {
		return nil, err
	}
	if !e.exists {
		return nil, ErrMissing
	}
	if !e.regular {
		return nil, ErrNotRegular
	}
	if !e.loaded {
		if e.data, err = c.fs.ReadFile(path); err != nil {
			return nil, err
		}
		e.loaded = true
	}
	if text {
		if i := bytes.IndexByte(e.data, 0); i >= 0 {
			return nil, fmt.Errorf("%w (line %d)", ErrBinary, bytes.Count(e.data[:i], []byte("\n"))+1)
		}
		if !utf8.Valid(e.data) {
			i := firstInvalidUTF8(string(e.data))
			return nil, fmt.Errorf("%w (line %d)", ErrNotUTF8, bytes.Count(e.data[:i], []byte("\n"))+1)
		}
	}
	return e, nil
}

// creatable checks that a new file can be written at path: nothing is there,
// and every existing ancestor is a directory.
func (c *computer) creatable(path string) error {
	e, err := c.lookup(path)
	if err != nil {
		return err
	}
	if e.exists {
		if !e.regular {
			return fmt.Errorf("%w (and is not a regular file)", ErrExists)
		}
		return ErrExists
	}
	var missing []string
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		e, err := c.lookup(dir)
		if err != nil {
			return err
		}
		if e.exists {
			if !e.dir {
				return fmt.Errorf("%w: %s", ErrParentNotDir, c.display(dir))
			}
			break
		}
		missing = append(missing, dir)
		if dir == filepath.Dir(dir) {
			break
		}
	}
	// Apply will create these, and later operations must see them.
	for _, dir := range missing {
		c.state[dir] = &entry{exists: true, dir: true}
	}
	return nil
}

// display shows path relative to the workdir when it is inside it, so that
// messages read like the patch.
func (c *computer) display(path string) string {
	rel, err := filepath.Rel(c.workdir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}
