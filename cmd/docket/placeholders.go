package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/sandbox"
)

// placeholderRecords is where the sandbox records the placeholder
// directories it makes: under $DOCKET_HOME, which no sandboxed command can
// write, so a record there is docket's own word.
func placeholderRecords(cfg *config.Config) string {
	return filepath.Join(cfg.Home, "placeholders")
}

// removeLeftPlaceholders removes the read-only placeholder directories a
// killed docket left (in any workspace, --add-dir root or beside docket's
// binary), saying which on stderr. A failure only costs a leftover empty
// directory, so it is reported, not fatal.
func removeLeftPlaceholders(stderr io.Writer, cfg *config.Config) {
	removed, err := sandbox.RemoveLeftPlaceholders(placeholderRecords(cfg))
	for _, p := range removed {
		fmt.Fprintf(stderr, "docket: removed %s, an empty placeholder a killed docket left\n", p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "docket: warning: %v\n", err)
	}
}
