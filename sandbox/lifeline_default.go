//go:build !docketfault

package sandbox

// lifelineDisabled says whether the crash tests turned off what makes a
// command die with docket; only the docketfault build can (see
// lifeline_docketfault.go).
func lifelineDisabled() bool { return false }

// faultBuild says this binary was built with the docketfault tag.
const faultBuild = false
