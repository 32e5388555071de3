package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/permissions"
)

// Bounds of a hidden-path expansion: entries looked at in all, and paths
// to cover. Past either the expansion is cut, and a cut expansion fails:
// a glob that may match more than was looked at cannot promise to hide it.
const (
	MaxHiddenScan  = 100_000
	MaxHiddenPaths = 4096
)

// HiddenError is a set of none rules that cannot be kept hidden; the run is
// refused.
type HiddenError struct {
	Pattern string
	Msg     string
}

func (e *HiddenError) Error() string { return fmt.Sprintf("hidden path %s: %s", e.Pattern, e.Msg) }

// HiddenPaths expands a profile's none patterns into the existing paths the
// sandbox covers (an empty read-only directory over a directory, an empty
// file over anything else), symlinks resolved to what they lead to. Globs
// are scanned from their literal root, at most depth levels below it, not
// following symlinked directories. It fails closed: a scan cut by depth or
// by MaxHiddenScan, more than MaxHiddenPaths paths, a file with other hard
// links (another name would still read it), and a missing path under a
// writable root (the command could create it) are errors.
func HiddenPaths(patterns []string, depth int, writable []string) ([]string, error) {
	return hiddenPaths(patterns, depth, writable, MaxHiddenScan, MaxHiddenPaths)
}

func hiddenPaths(patterns []string, depth int, writable []string, maxScan, maxPaths int) ([]string, error) {
	x := &expansion{depth: depth, writable: writable, seen: map[string]bool{}, maxScan: maxScan, maxPaths: maxPaths}
	for _, p := range patterns {
		var err error
		if permissions.HasGlob(p) {
			err = x.glob(p)
		} else {
			err = x.literal(p, p)
		}
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(x.out)
	return x.out, nil
}

type expansion struct {
	depth    int
	maxScan  int
	maxPaths int
	writable []string
	scanned  int
	seen     map[string]bool
	out      []string
}

// literal adds one path (found as, or matched by, pattern).
func (x *expansion) literal(pattern, p string) error {
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		if events.WithinAny(p, x.writable) {
			return &HiddenError{pattern, fmt.Sprintf("%s does not exist, and the command could create it under a writable root; create it (even empty) or leave the rule out", p)}
		}
		// Outside the writable roots nothing inside the sandbox can make it.
		return nil
	}
	if err != nil {
		return &HiddenError{pattern, err.Error()}
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(real, &st); err != nil {
		return &HiddenError{pattern, err.Error()}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR && st.Nlink > 1 {
		return &HiddenError{pattern, fmt.Sprintf("%s has %d hard links: another name would still read it", real, st.Nlink)}
	}
	if !x.seen[real] {
		x.seen[real] = true
		x.out = append(x.out, real)
		if len(x.out) > x.maxPaths {
			return &HiddenError{pattern, fmt.Sprintf("more than %d paths to hide", x.maxPaths)}
		}
	}
	return nil
}

// glob scans below the pattern's literal root.
func (x *expansion) glob(pattern string) error {
	root := permissions.GlobRoot(pattern)
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		if events.WithinAny(root, x.writable) {
			return &HiddenError{pattern, fmt.Sprintf("%s does not exist, and the command could create matches under a writable root", root)}
		}
		return nil
	}
	var walk func(dir string, level int) error
	walk = func(dir string, level int) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return &HiddenError{pattern, fmt.Sprintf("scanning %s: %v", dir, err)}
		}
		for _, e := range entries {
			x.scanned++
			if x.scanned > x.maxScan {
				return &HiddenError{pattern, fmt.Sprintf("the scan looked at %d entries without finishing (the bound); narrow the glob", x.maxScan)}
			}
			p := filepath.Join(dir, e.Name())
			if permissions.MatchGlob(pattern, p) {
				if err := x.literal(pattern, p); err != nil {
					return err
				}
				continue // covered whole
			}
			if !e.IsDir() {
				continue
			}
			if level >= x.depth {
				return &HiddenError{pattern, fmt.Sprintf("%s lies deeper than glob_scan_max_depth = %d below %s; the expansion is cut, so the glob cannot be kept hidden", p, x.depth, root)}
			}
			if err := walk(p, level+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, 1)
}
