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

// testRequirementsFiles is DOCKET_TEST_REQUIREMENTS=FILE
// (faultinject.RequirementsFiles). Only this build reads it: a release
// binary's managed requirements cannot be redirected.
func testRequirementsFiles() []string { return faultinject.RequirementsFiles(os.Getenv) }
