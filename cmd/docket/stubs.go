package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// stubRecords is where the sandbox records the stubs (empty read-only
// directories) it makes: under $DOCKET_HOME, which no sandboxed command
// can write, so a record there is docket's own word.
func stubRecords(cfg *config.Config) string {
	return filepath.Join(cfg.Home, "stubs")
}

// legacyStubRecords is where a docket before the rename to stubs recorded
// them ("placeholders"): read at every start, so that what an older
// docket left is still removed. The record format is the same.
func legacyStubRecords(cfg *config.Config) string {
	return filepath.Join(cfg.Home, "placeholders")
}

// removeLeftStubs removes the stubs a killed docket left (in any
// workspace, --add-dir root or beside docket's binary), saying which on
// stderr. A failure only costs a leftover empty directory, so it is
// reported, not fatal.
func removeLeftStubs(stderr io.Writer, cfg *config.Config) {
	for _, records := range []string{stubRecords(cfg), legacyStubRecords(cfg)} {
		removed, err := stubs.RemoveLeft(records)
		for _, p := range removed {
			fmt.Fprintf(stderr, "docket: removed %s, an empty read-only stub a killed docket left\n", p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "docket: warning: %v\n", err)
		}
	}
}
