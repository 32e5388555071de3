package sandbox

// Layers for the git directory walk (package gitwalk). "gitdirs:partial"
// is a walk cut short at its bound: what it did not look into is
// read-only for the call (Spec.Unseen), so no repository is
// writable because of it; some writes to the unseen part fail.
const (
	LayerGitDirs        = "gitdirs"
	LayerGitDirsPartial = "gitdirs:partial"
)

// Values of Spec.GitScan.
const (
	gitScanComplete = "complete"
	gitScanPartial  = "partial"
)

func gitDirsLayer(scan string) string {
	if scan == gitScanPartial {
		return LayerGitDirsPartial
	}
	return LayerGitDirs
}
