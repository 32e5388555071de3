//go:build linux && !cgo

package initc

import "errors"

// CanSpawn is false without cgo: the init is C.
const CanSpawn = false

// HeaderSize is unused without cgo.
const HeaderSize = 0

var errNoCgo = errors.New("sandbox init: this binary was built without cgo")

// Spawn refuses: the init is C.
func Spawn(Args) (pid, pidfd int, err error) { return 0, -1, errNoCgo }

// Encode refuses: the layout is the C init's.
func Encode(Command) ([]byte, error) { return nil, errNoCgo }
