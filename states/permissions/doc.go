// Package permissions is the pure decision logic of Codex-style permission
// profiles: the [permissions.NAME] tables as the config decodes them, the
// built-in profiles (:read-only, :workspace, :danger-full-access), their
// resolution against the session's project roots and temporary directory,
// the access a path gets, and the verdict a network host gets.
//
// Nothing here does I/O or reads a clock: the config loader decodes the
// tables, engine resolves the paths the special names stand for and passes
// them in, and the egress proxy asks Network.Decide about each host.
//
// Choices made where Codex's documentation is silent (docs/decisions.md,
// "Permission profiles"):
//
//   - Overlapping filesystem rules: the rule that names the nearest
//     ancestor of a path (or the path itself) wins; at the same depth a
//     literal path beats a glob; at the same depth and kind the strictest
//     access wins (none, then read, then write).
//   - A path no rule covers is not readable (none): a profile lists what a
//     command may see, :root = "read" being the usual first line.
//   - Overlapping domain rules: a matching deny always wins over an allow.
//     "*.host" covers the subdomains of host, never host itself.
//   - Domain patterns are normalised before they are compared: lower case,
//     a trailing dot dropped, an IDN converted to its ASCII (punycode) form.
//     A pattern with a port, a scheme, a path, an IP literal or a wildcard
//     anywhere but a leading "*." is an error naming the key.
package permissions
