package proto

import "github.com/docket-engine/docket/sandbox/layers"

// Values of Spec.GitScan.
const (
	GitScanComplete = "complete"
	GitScanPartial  = "partial"
)

// GitDirsLayer is the layer a walk of GitScan scan reports.
func GitDirsLayer(scan string) string {
	if scan == GitScanPartial {
		return layers.GitDirsPartial
	}
	return layers.GitDirs
}
