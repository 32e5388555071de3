//go:build linux && cgo

package sandbox

/*
#include <stdlib.h>
#include "server_spawn_linux.h"
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

// serverCanSpawn says whether this binary can be a sandbox server: the
// init is C (server_spawn_linux.c), so it needs cgo.
const serverCanSpawn = true

// spawnInit clones an init from the calling thread (whose mount namespace
// the init shares). a.fds are moved to 0.. in the init in their order:
// four placeholders for the command's streams and exit pipe (/dev/null),
// the control socket, the Landlock ruleset. It returns the init's pid and
// a pidfd for it.
func spawnInit(a spawnArgs) (pid, pidfd int, err error) {
	if len(a.fds) != C.DOCKET_SPAWN_FDS {
		return 0, -1, fmt.Errorf("sandbox server: an init takes %d descriptors, not %d", C.DOCKET_SPAWN_FDS, len(a.fds))
	}
	if len(a.filter)%sockFilterSize != 0 || len(a.filter) == 0 || len(a.filter)/sockFilterSize > 0xffff {
		return 0, -1, errors.New("sandbox server: malformed seccomp filter")
	}
	// What the child reads is C memory: it lives on in the child's copy of
	// the address space, and C may keep no Go pointer.
	s := (*C.struct_docket_spawn)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_docket_spawn{}))))
	defer C.free(unsafe.Pointer(s))
	for i, fd := range a.fds {
		s.fds[i] = C.int(fd)
	}
	n := len(a.filter) / sockFilterSize
	insns := (*C.struct_sock_filter)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.struct_sock_filter{}))))
	defer C.free(unsafe.Pointer(insns))
	for i, in := range unsafe.Slice(insns, n) {
		b := a.filter[i*sockFilterSize:]
		in.code = C.__u16(binary.NativeEndian.Uint16(b[0:2]))
		in.jt = C.__u8(b[2])
		in.jf = C.__u8(b[3])
		in.k = C.__u32(binary.NativeEndian.Uint32(b[4:8]))
		unsafe.Slice(insns, n)[i] = in
	}
	s.filter = insns
	s.filter_len = C.ushort(n)
	s.last_cap = C.int(a.lastCap)
	s.securebits = C.ulong(lockedSecurebits)
	s.clone_flags = C.int(a.cloneFlags)
	var cpidfd C.int
	r := C.docket_spawn(s, &cpidfd)
	if r < 0 {
		return 0, -1, fmt.Errorf("clone: %w", syscall.Errno(-r))
	}
	return int(r), int(cpidfd), nil
}

// encodeCommand lays a command out as the init reads it (struct
// docket_command, then the strings).
func encodeCommand(c initCommand) ([]byte, error) {
	if len(c.argv) == 0 || c.ncgroup < 0 || c.ncgroup > C.DOCKET_MAX_CGROUPS || len(c.rlimits) > C.DOCKET_MAX_RLIMITS {
		return nil, errors.New("sandbox server: a command the init cannot take")
	}
	var h C.struct_docket_command
	hsize := int(unsafe.Sizeof(h))
	size := hsize
	strs := append(append([]string{c.path, c.cwd}, c.argv...), c.env...)
	for _, s := range strs {
		size += len(s) + 1
	}
	if size > C.DOCKET_MAX_COMMAND {
		return nil, fmt.Errorf("sandbox server: the command's argv and environment take %d bytes: %w", size, unix.EMSGSIZE)
	}
	h.magic = C.DOCKET_COMMAND_MAGIC
	h.size = C.uint32_t(size)
	h.ncgroup = C.int32_t(c.ncgroup)
	if c.lifeline {
		h.lifeline = 1
	}
	h.nrlimits = C.int32_t(len(c.rlimits))
	h.argc = C.int32_t(len(c.argv))
	h.envc = C.int32_t(len(c.env))
	for i, l := range c.rlimits {
		h.rlimits[i].resource = C.int32_t(l.resource)
		h.rlimits[i].soft = C.uint64_t(l.soft)
		h.rlimits[i].hard = C.uint64_t(l.hard)
	}
	b := make([]byte, 0, size)
	b = append(b, unsafe.Slice((*byte)(unsafe.Pointer(&h)), hsize)...)
	for _, s := range strs {
		b = append(append(b, s...), 0)
	}
	return b, nil
}

// commandHeaderSize is how much of an encoded command carries the descriptors.
const commandHeaderSize = int(unsafe.Sizeof(C.struct_docket_command{}))
