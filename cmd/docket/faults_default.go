//go:build !docketfault

package main

import "github.com/docket-engine/docket/engine"

// faultsFromEnv returns no hooks: DOCKET_CRASH_AT and DOCKET_FAULT_LOG are
// read only by binaries built with -tags docketfault (faults_docketfault.go).
func faultsFromEnv() engine.Faults { return nil }
