package sandbox

// fsLayers forecasts the file system layers a plan gets here. The git
// directory layer depends on the plan's roots and is left out.
func (c Capabilities) fsLayers(network bool) []string {
	if !c.Namespaces() {
		return nil
	}
	if network {
		return []string{LayerDevpts}
	}
	return []string{LayerUnixSockets, LayerDevpts}
}
