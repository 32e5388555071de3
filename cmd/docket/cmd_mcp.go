package main

import "github.com/spf13/cobra"

func newMCPCmd(a *app) *cobra.Command { return notYet("mcp") }
