package sandbox

import "github.com/docket-engine/docket/sandbox/internal/proto"

// The helper protocol (the Spec, the report lines, the descriptors, the
// exit codes) is package proto's, which the confined side
// (sandbox/internal/confine, sandbox/internal/server) shares with docket
// without linking this package. These are its names on docket's side.

// Spec is the wire form of one sandboxed call; see proto.Spec.
type Spec = proto.Spec

// HelperArg is the first argument that puts a binary in helper mode.
const HelperArg = proto.HelperArg

// IsHelper reports whether args (os.Args) ask for the sandbox helper.
func IsHelper(args []string) bool { return proto.IsHelper(args) }
