//go:build !linux

package sandbox

import (
	"os"
	"runtime"
)

// Probe reports that no Linux sandbox layer exists on this platform.
func Probe() Capabilities {
	return Capabilities{
		OS:    runtime.GOOS,
		Root:  os.Geteuid() == 0,
		Notes: []string{"the Linux sandbox needs Linux; " + runtime.GOOS + " gets a Seatbelt profile only"},
	}
}
