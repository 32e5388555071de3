// Package cmdsafety classifies shell commands: it splits `bash -lc` style
// scripts into plain commands, recognises the known-safe read-only commands of
// DESIGN.md section 3.2, and flags dangerous ones (forced rm).
//
// Analyze returns a Script that answers every question from one parse; the
// package functions (Commands, IsKnownSafe, ...) each analyse anew, so a
// caller asking several questions of one argv should use a Script.
//
// Choices made where the specification is silent:
//
//   - A script is "plain" only if mvdan.cc/sh parses it into simple commands of
//     literal words joined by `&&`, `||`, `;`, `|` or newlines. Anything else
//     (variables, substitutions, globs `*?[`, braces `{}`, a leading `~` or `=`,
//     `$'...'`, assignments, redirections, here-docs, subshells, blocks,
//     functions, control flow, `!`, `&`, `|&`, parse errors) makes it dynamic.
//   - As a belt-and-braces rule, no argv containing `$`, a backtick, `>` or `<(`
//     in any element is ever known-safe, even where quoting would make it inert.
//   - The program word must be a bare name or an absolute path in a system
//     directory (/bin, /usr/bin, /usr/local/bin, /sbin, /usr/sbin); `./cat` is
//     not `cat`.
//   - Flag exceptions also catch the spellings that reach the same option:
//     `--flag=value`, GNU/git long-option abbreviations (`--outp`), and short
//     flag clusters (`rg -nz`, `base64 -do`).
//   - `git -C DIR` is allowed (DESIGN.md does not list it); `-c`, attached
//     `-cKEY=VAL` and the other listed options are refused anywhere in the argv.
//   - Dangerous detection looks through the wrappers sudo, doas, env, command,
//     exec, nohup, nice, time, timeout and xargs, and through every literal
//     command of a shell script, even a dynamic one (`rm -rf "$X"` counts).
package cmdsafety
