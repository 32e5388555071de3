package approval

import (
	"bytes"
	"encoding/json"
	"path/filepath"
)

// Tool names recorded in shell and patch keys.
const (
	ToolShell = "shell"
	ToolPatch = "apply_patch"
)

// shellKey, patchKey and mcpKey list their fields in sorted order, so
// encoding/json produces canonical JSON.
type shellKey struct {
	Command            []string `json:"command"`
	Cwd                string   `json:"cwd"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Tool               string   `json:"tool"`
}

type patchKey struct {
	Path string `json:"path"`
	Tool string `json:"tool"`
}

type mcpKey struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
}

func canonical(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// The key structs hold only strings, so encoding cannot fail.
	_ = enc.Encode(v)
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// ShellKey is the one key of a shell call: its exact argv, cwd and sandbox
// permissions ("" is recorded as "use_default").
func ShellKey(argv []string, cwd, sandboxPermissions string) string {
	if sandboxPermissions == "" {
		sandboxPermissions = "use_default"
	}
	cmd := argv
	if cmd == nil {
		cmd = []string{}
	}
	return canonical(shellKey{Command: cmd, Cwd: cwd, SandboxPermissions: sandboxPermissions, Tool: ToolShell})
}

// ExecKey is ShellKey under the name the engine uses.
func ExecKey(argv []string, cwd, sandboxPermissions string) string {
	return ShellKey(argv, cwd, sandboxPermissions)
}

// PatchKey is the key of one file a patch touches.
func PatchKey(path string) string {
	return canonical(patchKey{Path: filepath.Clean(path), Tool: ToolPatch})
}

// MCPKey is the key of an MCP tool call.
func MCPKey(server, tool string) string {
	return canonical(mcpKey{Server: server, Tool: tool})
}
