//go:build !docketfault

package proto

// LifelineDisabled says whether the crash tests turned off what makes a
// command die with docket; only the docketfault build can (see
// lifeline_docketfault.go).
func LifelineDisabled() bool { return false }

// FaultBuild says this binary was built with the docketfault tag.
const FaultBuild = false
