//go:build linux && !cgo

package sandbox

import "errors"

// serverCanSpawn is false without cgo: the init is C.
const serverCanSpawn = false

// commandHeaderSize is unused without cgo.
const commandHeaderSize = 0

var errNoCgo = errors.New("sandbox server: this binary was built without cgo")

func spawnInit(spawnArgs) (pid, pidfd int, err error) { return 0, -1, errNoCgo }

func encodeCommand(initCommand) ([]byte, error) { return nil, errNoCgo }
