package main

import (
	"fmt"

	"github.com/docket-engine/docket/states"
	"github.com/spf13/cobra"
)

func newFSMCmd(a *app) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "fsm",
		Short: "Print the tool-call state machine",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case "mermaid":
				fmt.Fprint(a.stdout, states.Mermaid())
			case "dot":
				fmt.Fprint(a.stdout, states.Dot())
			default:
				return usageErrorf("--format %q: want mermaid or dot", format)
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "mermaid", "mermaid or dot")
	return c
}
