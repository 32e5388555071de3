package main

import "github.com/spf13/cobra"

func newAuditCmd(a *app) *cobra.Command { return notYet("audit") }
