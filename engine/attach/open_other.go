//go:build !linux

package attach

import (
	"os"
	"path/filepath"
)

// openBeneath opens rel below root; without openat2 the check resolve
// made on the resolved path is all there is.
func openBeneath(root, rel string) (*os.File, error) {
	return os.Open(filepath.Join(root, rel))
}
