package journal

import (
	"fmt"
	"os"
	"path/filepath"
)

// makeDirs creates dir with any missing parents and returns the
// directories whose entries the creation changed, deepest first: dir itself
// (the journal file will be created in it) and the parent of each directory
// it created. A power cut keeps a new entry only once its directory is
// fsynced, so these are what Create syncs.
func makeDirs(dir string) ([]string, error) {
	dirty := []string{dir}
	// Bounded by the path's depth: each step removes one element.
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		dirty = append(dirty, filepath.Dir(d))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create journal directory: %w", err)
	}
	return dirty, nil
}

// syncDirs fsyncs each directory, so the entries created in it survive a
// power cut.
func syncDirs(dirs []string) error {
	for _, d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			return fmt.Errorf("sync directory %s: %w", d, err)
		}
		err = f.Sync()
		_ = f.Close() // opened read-only to sync: the sync's error is the one that matters
		if err != nil {
			return fmt.Errorf("sync directory %s: %w", d, err)
		}
	}
	return nil
}
