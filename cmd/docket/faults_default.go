//go:build !docketfault

package main

import "github.com/docket-engine/docket/engine"

// faultsFromEnv returns no hooks: DOCKET_CRASH_AT and DOCKET_FAULT_LOG are
// read only by binaries built with -tags docketfault (faults_docketfault.go).
func faultsFromEnv() engine.Faults { return nil }

// testRequirementsFiles returns nil: the managed requirements are the
// default files. Only the docketfault build lets a test name its own.
func testRequirementsFiles() []string { return nil }
