//go:build docketfault

package main

import (
	"os"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/faultinject"
)

// faultsFromEnv arms the crash-testing hooks (engine/faultinject). Only
// binaries built with -tags docketfault have this; see faults_default.go.
func faultsFromEnv() engine.Faults { return faultinject.FromEnv(os.Getenv, os.Stderr) }
