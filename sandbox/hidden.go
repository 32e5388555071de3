package sandbox

import (
	"errors"
	"path/filepath"

	"github.com/docket-engine/docket/sandbox/layers"
)

// LayerHidden names the empty read-only directories and files mounted over
// the paths a permission profile hides.
const LayerHidden = layers.Hidden

// checkHidden refuses hidden paths the helper cannot cover: they must be
// absolute and clean, and covering needs a mount namespace.
func (s Spec) checkHidden() error {
	if len(s.Hidden) == 0 {
		return nil
	}
	if !s.NS.Mount {
		return errors.New("hidden paths need a mount namespace")
	}
	for _, p := range s.Hidden {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p || p == "/" {
			return errors.New("hidden path " + p + ": not an absolute, clean path below /")
		}
	}
	return nil
}
