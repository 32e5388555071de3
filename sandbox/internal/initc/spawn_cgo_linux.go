//go:build linux && cgo

package initc

/*
#include <stdlib.h>
#include "init_linux.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sockFilterSize is sizeof(struct sock_filter).
const sockFilterSize = int(C.sizeof_struct_sock_filter)

// CanSpawn says whether this binary can start an init, and so be a
// sandbox server: the init is C (init_linux.c), so it needs cgo.
const CanSpawn = true

// Spawn clones an init from the calling thread (whose mount namespace
// the init shares). a.FDs are moved to 0.. in the init in their order:
// four stand-ins for the command's streams and exit pipe (/dev/null),
// the control socket, the Landlock ruleset. It returns the init's pid and
// a pidfd for it.
func Spawn(a Args) (pid, pidfd int, err error) {
	if len(a.FDs) != C.DOCKET_SPAWN_FDS {
		return 0, -1, fmt.Errorf("sandbox init: an init takes %d descriptors, not %d", C.DOCKET_SPAWN_FDS, len(a.FDs))
	}
	if len(a.Filter)%sockFilterSize != 0 || len(a.Filter) == 0 || len(a.Filter)/sockFilterSize > 0xffff {
		return 0, -1, errors.New("sandbox init: malformed seccomp filter")
	}
	// What the child reads is C memory: it lives on in the child's copy of
	// the address space, and C may keep no Go pointer.
	s := (*C.struct_docket_spawn)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_docket_spawn{}))))
	defer C.free(unsafe.Pointer(s))
	for i, fd := range a.FDs {
		s.fds[i] = C.int(fd)
	}
	n := len(a.Filter) / sockFilterSize
	insns := (*C.struct_sock_filter)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.struct_sock_filter{}))))
	defer C.free(unsafe.Pointer(insns))
	for i, in := range unsafe.Slice(insns, n) {
		b := a.Filter[i*sockFilterSize:]
		in.code = C.__u16(binary.NativeEndian.Uint16(b[0:2]))
		in.jt = C.__u8(b[2])
		in.jf = C.__u8(b[3])
		in.k = C.__u32(binary.NativeEndian.Uint32(b[4:8]))
		unsafe.Slice(insns, n)[i] = in
	}
	s.filter = insns
	s.filter_len = C.ushort(n)
	s.last_cap = C.int(a.LastCap)
	s.securebits = C.ulong(a.Securebits)
	s.clone_flags = C.int(a.CloneFlags)
	// The init never reads the Go heap: it is left out of its copy
	// (dontfork_linux.go). Failing to mark it only costs the copy.
	var cpidfd C.int
	syscall.ForkLock.Lock()
	heap, _ := leaveHeapOut(a.Heap, uintptr(unsafe.Pointer(s)), uintptr(unsafe.Pointer(insns)))
	r := C.docket_spawn(s, &cpidfd)
	heap.restore()
	syscall.ForkLock.Unlock()
	if r < 0 {
		return 0, -1, fmt.Errorf("clone: %w", syscall.Errno(-r))
	}
	return int(r), int(cpidfd), nil
}

// Encode lays a command out as the init reads it (struct
// docket_command, then the strings).
func Encode(c Command) ([]byte, error) {
	if len(c.Argv) == 0 || c.NCgroup < 0 || c.NCgroup > C.DOCKET_MAX_CGROUPS || len(c.Rlimits) > C.DOCKET_MAX_RLIMITS {
		return nil, errors.New("sandbox init: a command the init cannot take")
	}
	var h C.struct_docket_command
	hsize := int(unsafe.Sizeof(h))
	size := hsize
	strs := append(append([]string{c.Path, c.Cwd}, c.Argv...), c.Env...)
	for _, s := range strs {
		size += len(s) + 1
	}
	if size > C.DOCKET_MAX_COMMAND {
		return nil, fmt.Errorf("sandbox init: the command's argv and environment take %d bytes: %w", size, unix.EMSGSIZE)
	}
	h.magic = C.DOCKET_COMMAND_MAGIC
	h.size = C.uint32_t(size)
	h.ncgroup = C.int32_t(c.NCgroup)
	if c.Lifeline {
		h.lifeline = 1
	}
	h.nrlimits = C.int32_t(len(c.Rlimits))
	h.argc = C.int32_t(len(c.Argv))
	h.envc = C.int32_t(len(c.Env))
	for i, l := range c.Rlimits {
		h.rlimits[i].resource = C.int32_t(l.Resource)
		h.rlimits[i].soft = C.uint64_t(l.Soft)
		h.rlimits[i].hard = C.uint64_t(l.Hard)
	}
	b := make([]byte, 0, size)
	b = append(b, unsafe.Slice((*byte)(unsafe.Pointer(&h)), hsize)...)
	for _, s := range strs {
		b = append(append(b, s...), 0)
	}
	return b, nil
}

// HeaderSize is how much of an encoded command carries the descriptors.
const HeaderSize = int(unsafe.Sizeof(C.struct_docket_command{}))
