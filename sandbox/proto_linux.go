package sandbox

import "github.com/docket-engine/docket/sandbox/internal/proto"

// TraceEnv names the environment variable that turns on the start-up
// trace; see proto.TraceEnv.
const TraceEnv = proto.TraceEnv
