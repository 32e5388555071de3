package helper_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/docket-engine/docket/"

// The packages of the sandbox's confined side and the process each runs in.
const (
	public  = mod + "sandbox"                  // docket: run, spec, launchers, capture, probe, report
	proto   = mod + "sandbox/internal/proto"   // both sides: the spec, report lines, descriptors
	confine = mod + "sandbox/internal/confine" // the helper, inside the sandbox before execve
	server  = mod + "sandbox/internal/server"  // a session's sandbox server
	initc   = mod + "sandbox/internal/initc"   // the server's C init
	entry   = mod + "sandbox/helper"           // the door to confine and server outside sandbox/
	lean    = mod + "sandbox/cmd/docket-sandbox-helper"
)

// TestTheConfinedSideIsLinkedOnlyWhereItRuns checks the split of the
// sandbox by process with the go command's own dependency lists: package
// sandbox, which docket runs calls with, links none of the code that runs
// inside the sandbox; the lean helper links that code and nothing of
// docket's side (not the runner, not the server and its C init); the
// audit and the decisions link neither. docket itself links both, on
// purpose: it is the helper when the lean one is not beside it, and the
// sessions' sandbox servers must be a cgo binary (docs/decisions.md).
func TestTheConfinedSideIsLinkedOnlyWhereItRuns(t *testing.T) {
	tests := []struct {
		pkg           string
		links, avoids []string
	}{
		{pkg: public, links: []string{proto}, avoids: []string{confine, server, initc, entry}},
		{pkg: lean, links: []string{confine, proto}, avoids: []string{public, server, initc, entry, mod + "sandbox/proctree", mod + "sandbox/gitwalk", mod + "sandbox/stubs"}},
		{pkg: confine, links: []string{proto}, avoids: []string{public, server, initc}},
		{pkg: server, links: []string{confine, initc, proto}, avoids: []string{public}},
		{pkg: mod + "replay/audit", avoids: []string{public, confine, server, initc, proto}},
		{pkg: mod + "states/policy", avoids: []string{public, confine, server, initc, proto}},
		{pkg: mod + "cmd/docket", links: []string{public, entry, confine, server, initc}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.pkg, mod), func(t *testing.T) {
			deps := goListDeps(t, tt.pkg)
			for _, p := range tt.links {
				if !slices.Contains(deps, p) {
					t.Errorf("%s does not link %s: has the layout changed? Update this test and docs/architecture.md", tt.pkg, p)
				}
			}
			for _, p := range tt.avoids {
				if slices.Contains(deps, p) {
					t.Errorf("%s links %s (go list -deps %s shows why)", tt.pkg, p, tt.pkg)
				}
			}
		})
	}
}

// goListDeps is `go list -deps pkg`: every package pkg links, itself included.
func goListDeps(t *testing.T, pkg string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
	}
	return strings.Fields(string(out))
}
