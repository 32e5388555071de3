package rulesfile

import (
	"os"

	"github.com/docket-engine/docket/states/rules"
)

// Load reads the rules files at paths from the disk and evaluates them, as
// rules.Load does.
func Load(paths []string, opts rules.LoadOptions) (*rules.Set, error) {
	return rules.Load(paths, os.ReadFile, opts)
}
