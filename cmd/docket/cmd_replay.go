package main

import "github.com/spf13/cobra"

func newReplayCmd(a *app) *cobra.Command { return notYet("replay") }
