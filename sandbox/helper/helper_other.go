//go:build !linux

package helper

import (
	"fmt"
	"os"
)

// Main refuses to run: the helper exists only on Linux.
func Main(args []string) int {
	fmt.Fprintln(os.Stderr, "docket: the sandbox helper runs on Linux only")
	return 125
}
