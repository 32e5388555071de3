package main

import "github.com/spf13/cobra"

func newRulesCmd(a *app) *cobra.Command { return notYet("rules") }
