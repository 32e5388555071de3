//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
)

// Command is only implemented on Linux; elsewhere every plan is unavailable.
func Command(req Request) (*Process, error) {
	return nil, unavailableHere()
}

// Process is a sandboxed command built by Command; see the Linux version.
type Process struct {
	// Cmd starts the sandbox helper.
	Cmd *exec.Cmd
}

// Layers reports that nothing can be sandboxed here.
func (p *Process) Layers(ctx context.Context) ([]string, error) { return nil, unavailableHere() }

// Release does nothing: no Process is ever built here.
func (p *Process) Release() {}

func unavailableHere() error {
	return &UnavailableError{Missing: []string{"linux"}, Hint: hintPlatform, Err: fmt.Errorf("GOOS=%s", runtime.GOOS)}
}
