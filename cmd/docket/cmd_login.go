package main

import "github.com/spf13/cobra"

func newLoginCmd(a *app) *cobra.Command { return notYet("login") }
