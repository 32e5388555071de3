package main

import (
	"github.com/docket-engine/docket/engine/mcp"
	"github.com/spf13/cobra"
)

func newMCPCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "mcp", Short: "MCP servers"}
	var f commonFlags
	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "Configured MCP servers, their state and qualified tool names",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) (err error) {
			cfg, err := f.load(c)
			if err != nil {
				return err
			}
			cwd, err := workspace(f.cd)
			if err != nil {
				return err
			}
			mgr, err := mcp.NewManager(mcpServers(cfg), mcpOptions(cfg, cwd))
			if err != nil {
				return usageErrorf("mcp_servers: %v", err)
			}
			defer closing(&err, "the MCP servers", mgr.Close)
			return mcp.RenderList(a.stdout, mgr.List(c.Context()), asJSON)
		},
	}
	fl := list.Flags()
	fl.BoolVar(&asJSON, "json", false, "JSON output")
	fl.StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	fl.StringVarP(&f.profile, "profile", "p", "", "use [profiles.NAME] from config")
	fl.StringArrayVarP(&f.overrides, "config", "c", nil, "override one config key: KEY=VALUE")
	fl.StringVarP(&f.cd, "cd", "C", "", "directory MCP servers start in (default: current directory)")
	c.AddCommand(list, newMCPAddCmd(a), newMCPRemoveCmd(a), newMCPGetCmd(a))
	return c
}
