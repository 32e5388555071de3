package sandbox

import (
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
)

// Layers for the git directory walk (package gitwalk). "gitdirs:partial"
// is a walk cut short at its bound: what it did not look into is
// read-only for the call (Spec.Unseen), so no repository is
// writable because of it; some writes to the unseen part fail.
const (
	LayerGitDirs        = layers.GitDirs
	LayerGitDirsPartial = layers.GitDirsPartial
)

const (
	gitScanComplete = proto.GitScanComplete
	gitScanPartial  = proto.GitScanPartial
)
