package main

import "github.com/spf13/cobra"

func newResumeCmd(a *app) *cobra.Command { return notYet("resume") }
