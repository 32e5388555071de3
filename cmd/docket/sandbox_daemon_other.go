//go:build !linux

package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newSandboxDaemonCmd: the sandbox daemon runs on Linux only; the front
// binary never starts it elsewhere.
func newSandboxDaemonCmd(*app) *cobra.Command {
	return &cobra.Command{
		Use:    "sandbox-daemon",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("the sandbox daemon runs on Linux only")
		},
	}
}
