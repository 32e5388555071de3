//go:build docketfault

package sandbox

import "os"

// lifelineDisabled turns off the parent-death signal and the init's watch
// of the exit pipe when DOCKET_FAULT_NO_LIFELINE=1, so that a crash test
// can show that a command outlives a killed docket without them. Only
// binaries built with -tags docketfault read it; the helper reads the
// environment docket gave it, never the command's.
func lifelineDisabled() bool { return os.Getenv("DOCKET_FAULT_NO_LIFELINE") == "1" }

// faultBuild says this binary was built with the docketfault tag.
const faultBuild = true
