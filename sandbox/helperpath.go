package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
)

// HelperName is the file name of the stand-alone helper binary
// (./sandbox/cmd/docket-sandbox-helper) that DefaultHelperPath prefers.
const HelperName = "docket-sandbox-helper"

// DefaultHelperPath returns the helper Run starts when Request.HelperPath is
// empty: HelperName next to the running executable when it is there (it
// starts much faster than a second docket), else the executable itself,
// which must call helper.Main (package sandbox/helper) when IsHelper(os.Args).
func DefaultHelperPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: finding the helper binary: %w", err)
	}
	lean := filepath.Join(filepath.Dir(exe), HelperName)
	if st, err := os.Stat(lean); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
		return lean, nil
	}
	return exe, nil
}
