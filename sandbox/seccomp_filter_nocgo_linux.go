//go:build linux && !cgo

package sandbox

import "errors"

// buildSeccompFilter needs libseccomp, which needs cgo. A docket built
// without cgo cannot sandbox (Probe reports seccomp missing), but a helper
// built without cgo can still load filters the parent compiled.
func buildSeccompFilter(network bool) ([]byte, error) {
	return nil, errors.New("compiling seccomp filters needs libseccomp, and this binary was built without cgo")
}
