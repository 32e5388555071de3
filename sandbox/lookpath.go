package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// defaultPath is used when the command's environment has no PATH, as execvp does.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// commandError is a failure to find or execute the command itself; it becomes
// the command's outcome (exit 126 or 127, as shells report it), not an error.
type commandError struct {
	name string
	code int
	err  error
}

func (e *commandError) Error() string { return fmt.Sprintf("%s: %v", e.name, e.err) }
func (e *commandError) Unwrap() error { return e.err }

var errNotFound = errors.New("command not found")

// lookPath resolves name the way execvp would for a process whose
// environment is env and whose working directory is cwd. The result is
// absolute so that the helper does not depend on its own PATH or cwd.
func lookPath(name string, env []string, cwd string) (string, error) {
	if name == "" {
		return "", &commandError{name: name, code: 127, err: errNotFound}
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if err := checkExecutable(p); err != nil {
			return "", commandErrorFor(name, err)
		}
		return p, nil
	}
	pathEnv, ok := envLookup(env, "PATH")
	if !ok {
		pathEnv = defaultPath
	}
	var firstDenied error
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		p := filepath.Join(dir, name)
		err := checkExecutable(p)
		if err == nil {
			return p, nil
		}
		if firstDenied == nil && errors.Is(err, fs.ErrPermission) {
			firstDenied = err
		}
	}
	if firstDenied != nil {
		return "", commandErrorFor(name, firstDenied)
	}
	return "", &commandError{name: name, code: 127, err: errNotFound}
}

func checkExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("is a directory: %w", fs.ErrPermission)
	}
	if st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("not executable: %w", fs.ErrPermission)
	}
	return nil
}

func commandErrorFor(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &commandError{name: name, code: 127, err: errNotFound}
	}
	return &commandError{name: name, code: 126, err: err}
}
