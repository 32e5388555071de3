package sandbox

import (
	"testing"

	"github.com/docket-engine/docket/sandbox/layers"
)

// TestGitDirLayersAreTheVocabularys keeps the walk's layer names (declared
// with the walk) equal to the ones package layers has words for.
func TestGitDirLayersAreTheVocabularys(t *testing.T) {
	for got, want := range map[string]string{LayerGitDirs: layers.GitDirs, LayerGitDirsPartial: layers.GitDirsPartial} {
		if got != want {
			t.Errorf("the walk reports %q, the vocabulary names it %q", got, want)
		}
	}
}
