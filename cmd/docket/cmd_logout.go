package main

import "github.com/spf13/cobra"

func newLogoutCmd(a *app) *cobra.Command { return notYet("logout") }
