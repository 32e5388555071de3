package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// resolveHome picks Docket's home: the flag, else $DOCKET_HOME, else
// ~/.docket.
func resolveHome(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if h := os.Getenv("DOCKET_HOME"); h != "" {
		return filepath.Abs(h)
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find a home for docket: set DOCKET_HOME or --home: %w", err)
	}
	return filepath.Join(u, ".docket"), nil
}
