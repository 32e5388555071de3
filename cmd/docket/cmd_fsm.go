package main

import "github.com/spf13/cobra"

func newFSMCmd(a *app) *cobra.Command { return notYet("fsm") }
