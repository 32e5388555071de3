package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Summary lists the files a patch touched, by path as written in the patch.
type Summary struct {
	Added    []string
	Modified []string // a moved file is listed under its new path
	Deleted  []string
}

// String renders the summary as Codex's apply_patch prints it.
func (s Summary) String() string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, group := range []struct {
		tag   string
		paths []string
	}{{"A", s.Added}, {"M", s.Modified}, {"D", s.Deleted}} {
		for _, p := range group.paths {
			b.WriteString(group.tag + " " + p + "\n")
		}
	}
	return b.String()
}

// Apply writes a verified Result to disk in patch order: parent directories
// are created, each file is written to a temporary file and renamed into
// place. Before touching a file it checks that the file is still what Compute
// saw (ErrConflict otherwise). If any step fails, the steps already done are
// undone, newest first, as far as possible; the error says if that failed.
func Apply(r *Result) (Summary, error) {
	var (
		sum   Summary
		undos []func() error
	)
	rollback := func(err error) (Summary, error) {
		var errs []error
		for i := len(undos) - 1; i >= 0; i-- {
			if uerr := undos[i](); uerr != nil {
				errs = append(errs, uerr)
			}
		}
		if len(errs) > 0 {
			return Summary{}, fmt.Errorf("%w; rolling back the files already written also failed: %w", err, errors.Join(errs...))
		}
		return Summary{}, fmt.Errorf("%w; no files were changed", err)
	}
	for _, c := range r.Changes {
		if err := expectOnDisk(c.Path, c.Old); err != nil {
			return rollback(&FileError{Kind: c.Kind, Path: c.Display, Err: err})
		}
		var err error
		switch c.Kind {
		case KindAdd:
			err = createFile(c.Path, c.New, c.Perm, &undos)
			sum.Added = append(sum.Added, c.Display)
		case KindDelete:
			err = deleteFile(c.Path, c.Old, c.Perm, &undos)
			sum.Deleted = append(sum.Deleted, c.Display)
		case KindUpdate:
			if c.MovePath == "" {
				err = replaceFile(c.Path, c.New, c.Old, c.Perm, &undos)
				sum.Modified = append(sum.Modified, c.Display)
				break
			}
			if err = expectOnDisk(c.MovePath, nil); err != nil {
				break
			}
			if err = createFile(c.MovePath, c.New, c.Perm, &undos); err == nil {
				err = deleteFile(c.Path, c.Old, c.Perm, &undos)
			}
			sum.Modified = append(sum.Modified, c.DisplayMove)
		default:
			err = fmt.Errorf("unknown operation kind %q", c.Kind)
		}
		if err != nil {
			return rollback(&FileError{Kind: c.Kind, Path: c.Display, Err: err})
		}
	}
	return sum, nil
}

// expectOnDisk checks that path holds want, or does not exist when want is nil.
func expectOnDisk(path string, want []byte) error {
	got, err := os.ReadFile(path)
	switch {
	case want == nil && errors.Is(err, fs.ErrNotExist):
		return nil
	case want == nil && err == nil:
		return fmt.Errorf("%w: %s now exists", ErrConflict, path)
	case want == nil:
		return fmt.Errorf("%w: %s: %w", ErrConflict, path, err)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrConflict, err)
	case !bytes.Equal(got, want):
		return fmt.Errorf("%w: %s", ErrConflict, path)
	}
	return nil
}

func createFile(path string, data []byte, perm fs.FileMode, undos *[]func() error) error {
	made, err := mkdirAll(filepath.Dir(path))
	*undos = append(*undos, func() error { return removeDirs(made) })
	if err != nil {
		return err
	}
	if err := writeAtomic(path, data, perm); err != nil {
		return err
	}
	*undos = append(*undos, func() error { return os.Remove(path) })
	return nil
}

func replaceFile(path string, data, old []byte, perm fs.FileMode, undos *[]func() error) error {
	if err := writeAtomic(path, data, perm); err != nil {
		return err
	}
	*undos = append(*undos, func() error { return writeAtomic(path, old, perm) })
	return nil
}

func deleteFile(path string, old []byte, perm fs.FileMode, undos *[]func() error) error {
	if err := os.Remove(path); err != nil {
		return err
	}
	*undos = append(*undos, func() error { return writeAtomic(path, old, perm) })
	return nil
}

// writeAtomic replaces path with data through a temporary file in the same
// directory, so readers see the old or the new content, never a mix. A
// symbolic link at path is followed, so the link itself stays.
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".docket-patch-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// mkdirAll creates dir and its missing parents with mode 0755 and returns
// the directories it created, outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	slices.Reverse(missing)
	for i, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return missing[:i], err
		}
	}
	return missing, nil
}

// removeDirs removes directories created by mkdirAll, innermost first.
func removeDirs(dirs []string) error {
	var errs []error
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
