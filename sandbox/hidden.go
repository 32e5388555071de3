package sandbox

import (
	"github.com/docket-engine/docket/sandbox/layers"
)

// LayerHidden names the empty read-only directories and files mounted over
// the paths a permission profile hides.
const LayerHidden = layers.Hidden
