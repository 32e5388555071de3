package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/docket-engine/docket/engine/auth"
)

func newLogoutCmd(a *app) *cobra.Command {
	var home string
	c := &cobra.Command{
		Use:   "logout [--home DIR]",
		Short: "Forget the saved login (delete $DOCKET_HOME/auth.json)",
		Long: `Delete $DOCKET_HOME/auth.json, the tokens saved by docket login. API keys
in the environment are not affected. Logging out when not logged in is not
an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := resolveHome(home)
			if err != nil {
				return usageErrorf("%v", err)
			}
			store := auth.NewStore(h)
			existed, err := store.Delete()
			if err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("logout: %w", err)}
			}
			if existed {
				fmt.Fprintf(a.stdout, "Logged out; removed %s\n", store.Path())
			} else {
				fmt.Fprintf(a.stdout, "Not logged in (no %s)\n", store.Path())
			}
			return nil
		},
	}
	c.Flags().StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	return c
}
