package patch

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing/fstest"
)

// memFS is an in-memory FS over absolute paths, for fuzzing Compute without
// touching the disk. Directories are implied by the files under them.
type memFS map[string]string

func (m memFS) mapFS() fstest.MapFS {
	out := fstest.MapFS{}
	for name, data := range m {
		out[strings.TrimPrefix(filepath.Clean(name), "/")] = &fstest.MapFile{Data: []byte(data), Mode: 0o640}
	}
	return out
}

func (m memFS) rel(name string) string {
	r := strings.TrimPrefix(filepath.Clean(name), "/")
	if r == "" {
		return "."
	}
	return r
}

func (m memFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(m.mapFS(), m.rel(name)) }

func (m memFS) ReadFile(name string) ([]byte, error) { return fs.ReadFile(m.mapFS(), m.rel(name)) }
