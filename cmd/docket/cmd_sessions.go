package main

import "github.com/spf13/cobra"

func newSessionsCmd(a *app) *cobra.Command { return notYet("sessions") }
