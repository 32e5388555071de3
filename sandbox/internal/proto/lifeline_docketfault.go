//go:build docketfault

package proto

import "os"

// LifelineDisabled turns off the parent-death signal and the init's watch
// of the exit pipe when DOCKET_FAULT_NO_LIFELINE=1, so that a crash test
// can show that a command outlives a killed docket without them. Only
// binaries built with -tags docketfault read it; the helper reads the
// environment docket gave it, never the command's.
func LifelineDisabled() bool { return os.Getenv("DOCKET_FAULT_NO_LIFELINE") == "1" }

// FaultBuild says this binary was built with the docketfault tag.
const FaultBuild = true
