// Package prompt assembles the instructions sent with every model request:
// Docket's base instructions, the approval policy and sandbox stated to the
// model, and the AGENTS.md files that apply to the working directory. It is
// a pure function of its inputs and the files it reads.
package prompt

import (
	"strings"
)

// Input is what the instructions depend on.
type Input struct {
	// Home is $DOCKET_HOME; its AGENTS.md applies to every project.
	Home string
	// Cwd is the session's working directory.
	Cwd string
	// ApprovalPolicy is untrusted, on-failure, on-request or never.
	ApprovalPolicy string
	// SandboxMode is read-only, workspace-write, danger-full-access or external-sandbox.
	SandboxMode string
	// WritableRoots are workspace-write's writable roots as the sandbox plan
	// resolves them (cwd, configured roots, /tmp, $TMPDIR); empty means Cwd.
	WritableRoots []string
	// NetworkAccess says whether workspace-write allows the network.
	NetworkAccess bool
	// EgressProxy says the network goes only through the session's egress
	// proxy (a permission profile's domains), whatever NetworkAccess says.
	EgressProxy bool
	// ProjectDocMaxBytes caps the AGENTS.md text (project_doc_max_bytes);
	// 0 or less leaves AGENTS.md out.
	ProjectDocMaxBytes int64
	// FallbackFilenames are read, in order, in a project directory that
	// has no AGENTS.md (Codex's project_doc_fallback_filenames).
	FallbackFilenames []string
}

// Result is the assembled instructions and the documents they include.
type Result struct {
	Instructions string
	Docs         []Doc
}

// Build assembles the instructions: base text, the environment paragraph,
// then each AGENTS.md under a heading naming its path.
func Build(in Input) (Result, error) {
	env, err := Policy(in)
	if err != nil {
		return Result{}, err
	}
	docs, err := LoadDocsWith(in.Home, in.Cwd, in.ProjectDocMaxBytes, in.FallbackFilenames)
	if err != nil {
		return Result{}, err
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(BaseInstructions, "\n"))
	b.WriteString("\n\n")
	b.WriteString(env)
	if len(docs) > 0 {
		b.WriteString("\n# Instructions from AGENTS.md files\nThese come from the user and the project. Where they conflict, a file deeper in the tree wins over a shallower one, and all of them yield to the user's direct requests.\n")
		for _, d := range docs {
			b.WriteString("\n## " + d.Path + "\n")
			b.WriteString(strings.TrimRight(d.Text, "\n"))
			b.WriteString("\n")
			if d.Truncated {
				b.WriteString("[... truncated at project_doc_max_bytes ...]\n")
			}
		}
	}
	return Result{Instructions: b.String(), Docs: docs}, nil
}
