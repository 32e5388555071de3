package engine

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/patch"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/cmdsafety"
)

// interceptedPatch reports whether a shell command is apply_patch sent
// through the shell in one of the shapes Codex intercepts
// (cmdsafety.ApplyPatchInvocation), and returns the patch text and the
// directory its relative paths are read against: the call's workdir, or
// the `cd DIR` in front of it. Such a call takes the apply_patch path
// (verified whole, written by the sandboxed helper, approved and journaled
// as a patch); run as a command it could only fail, as there is no
// apply_patch program.
func interceptedPatch(argv []string, cwd string) (text, dir string, ok bool) {
	inv, ok := cmdsafety.ApplyPatchInvocation(argv)
	if !ok {
		return "", "", false
	}
	dir = cwd
	if inv.Dir != "" {
		dir = inv.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		dir = filepath.Clean(dir)
	}
	return inv.Patch, dir, true
}

// WritePaths lists the paths a shell call writes when it is an intercepted
// apply_patch (none otherwise, and none for arguments that do not decode),
// so the engine resolves them when the response arrives, as for the
// apply_patch tool.
func (ShellTool) WritePaths(c Call, root string) []string {
	if !mayInterceptPatch(c.Payload) {
		return nil
	}
	return shellWritePaths(c, root)
}

// mayInterceptPatch is false for arguments that cannot decode to an
// intercepted apply_patch: that needs an argv[0] of apply_patch or
// applypatch, or a script with a here-document ("<<"), and JSON can spell
// those only literally or with a \u escape. Most shell calls are not
// patches, and decoding their arguments a second time for this was a
// twelfth of what a verify replay allocated (issue 31).
func mayInterceptPatch(payload string) bool {
	return strings.Contains(payload, "apply") || strings.Contains(payload, "<<") || strings.Contains(payload, `\u`)
}

// shellWritePaths is WritePaths without the filter.
func shellWritePaths(c Call, root string) []string {
	var a shellArgs
	if json.Unmarshal([]byte(c.Payload), &a) != nil {
		return nil
	}
	cwd, err := resolveWorkdir(root, a.Workdir)
	if err != nil {
		return nil
	}
	text, dir, ok := interceptedPatch(a.Command, cwd)
	if !ok {
		return nil
	}
	p, err := patch.Parse(text)
	if err != nil {
		return nil
	}
	paths, _ := patchPaths(p, dir)
	return paths
}

// kindAccepter is a tool that also takes calls of a kind other than its
// spec's (apply_patch: custom, and function with {"input": ...}).
type kindAccepter interface {
	AcceptsKind(k model.ToolKind) bool
}

func acceptsKind(t Tool, k model.ToolKind) bool {
	ka, ok := t.(kindAccepter)
	return ok && ka.AcceptsKind(k)
}

// toolName is the tool a call's notices name: apply_patch for a patch the
// shell tool intercepted, so clients show a file change, not a command.
func toolName(cr *callRun) string {
	if cr.prep != nil && cr.prep.ApprovalKind == events.ApprovalPatch {
		return "apply_patch"
	}
	return cr.call.Name
}
