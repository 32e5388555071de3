package main

import (
	"os"
	"testing"
)

// TestMain removes the docket binary cliBinary built, if it built one.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
