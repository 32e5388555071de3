package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/docket-engine/docket/sandbox"
)

// versionReport is what `docket --version` prints: the release, the commit
// the binary was built from, the Go toolchain, and the Landlock ABI this
// kernel offers (what the sandbox will actually have, not what it wants).
type versionReport struct {
	Version   string
	Commit    string // "" when the build recorded no VCS information
	Modified  bool   // the work tree had uncommitted changes at build time
	GoVersion string
	Landlock  int    // 0: not available
	Notes     string // why Landlock is not available, when it is not
}

// buildVersion reads the build information Go embeds in the binary
// (vcs.revision, vcs.modified) and probes the kernel.
func buildVersion() versionReport {
	v := versionReport{Version: version, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	caps := sandbox.Probe()
	v.Landlock = caps.LandlockABI
	for _, n := range caps.Notes {
		if strings.HasPrefix(n, "landlock") {
			v.Notes = n
		}
	}
	return v
}

func (v versionReport) write(w io.Writer) {
	fmt.Fprintf(w, "docket %s\n", v.Version)
	commit := v.Commit
	switch {
	case commit == "":
		commit = "unknown (built without VCS information)"
	case v.Modified:
		commit += " (with uncommitted changes)"
	}
	fmt.Fprintf(w, "commit:   %s\n", commit)
	fmt.Fprintf(w, "go:       %s\n", v.GoVersion)
	if v.Landlock > 0 {
		fmt.Fprintf(w, "landlock: ABI %d\n", v.Landlock)
	} else {
		fmt.Fprintf(w, "landlock: not available (%s); sandboxed commands will not run\n", strings.TrimPrefix(v.Notes, "landlock: "))
	}
}
