package main

import "github.com/spf13/cobra"

func newSandboxCmd(a *app) *cobra.Command { return notYet("sandbox") }
