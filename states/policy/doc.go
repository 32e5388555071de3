// Package policy is Docket's pure decision logic for one tool call: the
// approval policies, sandbox modes and review decisions with their CLI
// spellings, the requirement of a shell call (DESIGN.md section 3's ordered
// list) and of an apply_patch call, the fallback table, the retry rule after a
// sandbox denial, the sandbox selection, and the sandbox plan with its
// writable roots and protected subpaths.
//
// Nothing here does I/O or reads a clock: what depends on the disk (the
// writable roots resolved, the git directories, where a patch's paths really
// lead) is read by engine/workspace, recorded in the journal and passed in.
//
// Choices made where the specification is silent:
//
//   - Unknown (e.g. zero) approval policies are treated as untrusted and
//     unknown sandbox modes as read-only: fail closed.
//   - Step 3 (known-safe) also accepts a script whose commands are each
//     either known-safe or matched by an allow rule; it still runs sandboxed.
//   - Step 4's "unless danger-full-access or external-sandbox" qualifies the
//     never → Forbidden clause: under never with no sandbox a dangerous
//     command falls through to step 5 (Skip); under the other policies it
//     still needs approval in every mode.
//   - Dangerous commands are looked for only in commands no rule matched, so
//     a user's explicit rule for `rm -rf build` is honoured.
//   - A proposed amendment is offered on NeedsApproval (except for a prompt
//     rule, which an allow rule could not override) and on a sandboxed Skip
//     (for the retry prompt); it is the first command no rule allowed that is
//     not known-safe, and never for a dynamic script or an over-broad prefix.
//   - apply_patch is judged against the session's sandbox plan (the roots the
//     sandbox enforces, as journaled), not recomputed roots. Paths are resolved
//     like the kernel would (symlinks, even dangling ones, and "..") first; a
//     relative path, or one inside a read-only subpath (.git, .docket,
//     .agents, .codex, the gitdir), counts as outside the project.
//   - The plan lists root/.git, root/.docket, root/.agents and root/.codex
//     (ProtectedNames) for every
//     root, existing or not, plus the real gitdir (and a worktree's commondir)
//     when a `.git` symlink or file points inside a writable root (the
//     engine finds those; BuildSandboxPlan keeps the ones inside a root). Read-only
//     mode has no writable roots and no network. $TMPDIR is a root only if it
//     is absolute.
//   - The retry rule treats an MCP or other tool like the shell: retry only
//     if the caller says the tool allows escalation.
package policy
