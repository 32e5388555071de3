// Package approval builds approval keys and keeps the session's approval
// cache with Codex's multi-key semantics: a request skips the prompt only if
// every one of its keys was granted, and an approved_for_session answer grants
// each key separately.
//
// Choices made where the specification is silent:
//
//   - A key is canonical JSON (object keys sorted, no HTML escaping):
//     {command, cwd, sandbox_permissions, tool:"shell"}, {path,
//     tool:"apply_patch"}, {server, tool}. The member sets differ, so keys of
//     different tools never collide.
//   - The shell argv is used exactly as given: normalising it (for example
//     `/bin/bash` to `bash`) could only widen a grant. A compound script is
//     therefore keyed by the whole script.
//   - Patch paths are cleaned (filepath.Clean) but not resolved; resolution is
//     the writable-roots check's job, and a grant names what the user saw.
//   - A request with no keys is never considered granted.
//   - The store is safe for concurrent use, since parallel calls share it.
package approval
