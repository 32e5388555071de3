package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/spf13/cobra"
)

func newReplayCmd(a *app) *cobra.Command {
	var home string
	var live, asJSON bool
	c := &cobra.Command{
		Use:   "replay SESSION|FILE [--live] [--json]",
		Short: "Verify replay (default) or live replay; exit 1 on divergence",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			h, err := resolveHome(home)
			if err != nil {
				return err
			}
			sf, err := journal.Find(h, args[0])
			if err != nil {
				return usageErrorf("%v", err)
			}
			if live {
				rep, err := replay.Live(c.Context(), sf.Path, replay.LiveOptions{})
				if err != nil {
					return err
				}
				if asJSON {
					return json.NewEncoder(a.stdout).Encode(rep)
				}
				rep.Render(a.stdout)
				if rep.Drifted() {
					return &exitError{code: exitFailed}
				}
				return nil
			}
			res, err := replay.VerifyFile(c.Context(), sf.Path, replay.Options{})
			var d *replay.Divergence
			if errors.As(err, &d) {
				if asJSON {
					if err := json.NewEncoder(a.stdout).Encode(map[string]any{"ok": false, "seq": d.Seq, "call_id": d.CallID, "kind": d.Kind, "journal": d.Want, "replay": d.Got}); err != nil {
						return &exitError{code: exitFailed, err: fmt.Errorf("write the divergence: %w", err)}
					}
				} else {
					// Both sides quote recorded model output: safe text only.
					fmt.Fprint(a.stdout, safetext.Text(d.Error()))
				}
				return &exitError{code: exitFailed}
			}
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(a.stdout).Encode(map[string]any{"ok": true, "records": res.Records, "compared": res.Compared, "segments": res.Segments})
			}
			fmt.Fprintf(a.stdout, "replay ok: %s: %d records, %d decisions and inputs matched, %d process segment(s)\n", sf.Path, res.Records, res.Compared, res.Segments)
			if res.Damaged != nil {
				fmt.Fprintf(a.stdout, "note: %v\n", res.Damaged)
			}
			return nil
		},
	}
	c.Flags().StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	c.Flags().BoolVar(&live, "live", false, "run the recorded commands again in a scratch copy of the workspace")
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}
