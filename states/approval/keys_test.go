package approval

import (
	"slices"
)

// PatchKeys returns one key per distinct file path of a patch, sorted.
func PatchKeys(paths []string) []string {
	keys := make([]string, 0, len(paths))
	for _, p := range paths {
		keys = append(keys, PatchKey(p))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
