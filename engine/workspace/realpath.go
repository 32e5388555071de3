package workspace

import "github.com/docket-engine/docket/internal/realpath"

// RealPath resolves an absolute path the way the kernel would when writing
// it (realpath.Resolve): symlinks (even dangling ones) and ".." are
// followed, and the part that does not exist yet is appended as written.
// A relative path is only cleaned.
func RealPath(p string) string { return realpath.Resolve(p) }
