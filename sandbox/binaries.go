package sandbox

import (
	"os"
	"sync"
)

// binaryCache keeps the helper binaries a Capabilities has started open, so
// that every call execs the very file the first one opened: a rename over
// the helper's path between calls changes nothing. Probe makes one; copies
// of a Capabilities share it.
type binaryCache struct {
	mu    sync.Mutex
	files map[string]*os.File
}
