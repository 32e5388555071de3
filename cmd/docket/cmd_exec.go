package main

import "github.com/spf13/cobra"

func newExecCmd(a *app) *cobra.Command { return notYet("exec") }
