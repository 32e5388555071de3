//go:build !linux

package confine

import (
	"fmt"
	"os"

	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// Main refuses to run: the helper exists only on Linux.
func Main(args []string, serve func(proto.Spec) int) int {
	fmt.Fprintln(os.Stderr, "docket: the sandbox helper runs on Linux only")
	return proto.ExitSetup
}
