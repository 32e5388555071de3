// Package patch implements Codex's apply_patch format: parsing the patch
// text, resolving its paths, verifying every hunk against the files on disk,
// and writing the result.
//
// The format is Codex's (`*** Begin Patch`, `*** Add File:`, `*** Delete File:`,
// `*** Update File:` with an optional `*** Move to:`, `@@` hunks of ' ', '-',
// '+' lines, `*** End of File`, `*** End Patch`) with Codex's leniencies:
// marker lines may carry surrounding whitespace, the patch may be wrapped in a
// heredoc (`<<'EOF'` ... `EOF`, optionally preceded by `apply_patch`), the
// first `@@` of an Update is optional, and context is matched exactly, then
// ignoring trailing whitespace, then ignoring surrounding whitespace, then
// with typographic punctuation (dashes, quotes, odd spaces) folded to ASCII.
//
// Where Codex is vague or loses data, this package is stricter:
//
//   - Compute verifies every operation and hunk before anything is written,
//     so a patch applies whole or not at all; Apply rolls back the files it
//     already wrote if a later write fails.
//   - Ambiguity: the first anchor of a hunk (its first `@@ context` line, or
//     its old lines when it has none) must match exactly one place after the
//     previous hunk of the same file, within the strictest matching pass that
//     finds it. Anything after an anchor (further `@@` lines, then the old
//     lines) takes the first match after that anchor, which is what the
//     anchor is for. Codex silently picks the first match everywhere.
//   - Add File of an existing file and Move to an existing file are errors
//     (Codex overwrites). Delete the file first in the same patch to replace it.
//   - Move to the file's own path is a plain update (Codex deletes the file).
//   - A pure insertion (a hunk with only '+' lines) after an `@@ context`
//     line goes right after that line; without context it goes at the end of
//     the file, as in Codex (which appends at the end in both cases).
//   - An update keeps a file's trailing blank lines (Codex drops one) and,
//     as Codex does, ends the file with a newline.
//   - Several consecutive `@@ context` lines narrow the position step by step
//     (Codex's instructions describe this but its parser rejects it).
//   - A unified-diff hunk header (`@@ -12,5 +12,7 @@ func f()`) is accepted;
//     the text after the second `@@` is used as the context line.
//
// Text handling: patch text and updated files must be valid UTF-8 without NUL
// bytes (Codex rejects non-UTF-8 files too). A file whose every line ending is
// CRLF is matched without the CR and written back with CRLF; a file with mixed
// endings is treated as LF, a stray CR counting as trailing whitespace when
// matching. A UTF-8 byte order mark is kept. Delete does not require text,
// so binary files can be deleted.
//
// Apply checks, before touching each file, that it is still what Compute
// read (ErrConflict otherwise), and undoes what it wrote if a later step
// fails. The write itself is meant to run sandboxed: the engine starts its own
// binary with HelperArg, and HelperMain parses, verifies and applies there.
package patch
