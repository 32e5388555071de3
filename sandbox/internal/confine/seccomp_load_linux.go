package confine

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"golang.org/x/sys/unix"
)

// loadSeccomp installs a compiled filter on every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC). no_new_privs must already be set.
func loadSeccomp(prog []byte) error {
	if err := proto.CheckBPF(prog); err != nil {
		return err
	}
	insns := make([]unix.SockFilter, len(prog)/proto.SockFilterSize)
	for i := range insns {
		b := prog[i*proto.SockFilterSize:]
		insns[i] = unix.SockFilter{
			Code: binary.NativeEndian.Uint16(b[0:2]),
			Jt:   b[2],
			Jf:   b[3],
			K:    binary.NativeEndian.Uint32(b[4:8]),
		}
	}
	fprog := unix.SockFprog{Len: uint16(len(insns)), Filter: &insns[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(insns)
	if errno != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER): %w", errno)
	}
	if r != 0 {
		return fmt.Errorf("seccomp: thread %d could not be synchronised", r)
	}
	return nil
}
