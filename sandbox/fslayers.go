package sandbox

import "github.com/docket-engine/docket/sandbox/layers"

// fsLayers forecasts the file system layers a plan gets here. The git
// directory layer depends on the plan's roots and is left out.
func (c Capabilities) fsLayers(network bool) []string {
	if !c.Namespaces() {
		return nil
	}
	if network {
		return []string{layers.Devpts}
	}
	return []string{layers.UnixSockets, layers.Devpts}
}
