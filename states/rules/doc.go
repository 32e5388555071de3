// Package rules evaluates Codex-compatible Starlark rules files (prefix_rule,
// host_executable, network_rule), evaluates commands against them, and says
// what an amendment line is and where it goes in a file. It does no file
// I/O: engine/rulesfile finds, reads and appends to the files.
//
// Semantics follow Codex's execpolicy: a pattern is an argv prefix whose
// positions may be lists of alternatives; decision defaults to "allow";
// match/not_match examples (token lists or shlex strings) are checked when the
// file has been evaluated, against the rules of their own prefix_rule call;
// the strictest matching decision wins (forbidden > prompt > allow).
//
// Choices made where the specification is silent:
//
//   - Rules are indexed by their first token (one entry per alternative), so
//     evaluation cost depends on the rules for that program, not on the total.
//   - A program word with a slash also matches rules written for its
//     basename. Prompt and forbidden rules always apply that way (a path cannot
//     dodge a forbidden rule); allow rules only when no rule matched the exact
//     word, the path is absolute, and host_executable (if declared for that
//     name) lists the path, as in Codex.
//   - host_executable: the last declaration for a name wins, within a file
//     and across files in load order (DOCKET_HOME/rules/*.rules sorted, then
//     <project>/.docket/rules/*.rules sorted), as in Codex. A project file
//     can narrow a list a user file declared but not widen it (its list is
//     cut to the paths both name), since a user's allow rule runs outside
//     the sandbox.
//   - A plain shell script (see cmdsafety) is evaluated per command, and the
//     wrapper argv itself is checked too for prompt/forbidden rules. A dynamic
//     script is one opaque command for allow rules, while prompt/forbidden
//     rules are also checked against every literal command inside it, so
//     `$(true)` cannot hide `git push` from a prompt rule.
//   - The Starlark dialect allows set, while, top-level control flow and
//     global reassignment; recursion and load() are refused; f-strings (which
//     Codex's Rust Starlark has) are not available in go.starlark.net. Each
//     file runs under a step limit (DefaultMaxSteps) so a loop cannot hang.
//   - `reviewer="user"|"auto_review"` is accepted on prefix_rule and ignored;
//     network_rule is validated and kept but Docket's network switch is all or
//     nothing, so it does not affect decisions.
//   - Amendments refuse, besides Codex's banned list, any prefix that is a
//     shell, interpreter or git with only options after it, and any wrapper
//     (env, sudo, xargs, timeout...) that does not name a narrow command.
//   - rulesfile.Discover drops a project file that is the same file as a
//     home file (a project rooted at the user's home directory).
package rules
