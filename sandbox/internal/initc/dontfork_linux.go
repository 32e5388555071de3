//go:build linux && cgo

package initc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The init is a copy of the server's address space (clone without
// CLONE_VM: it must share no memory with the server), but it runs only C
// on memory the server prepared in C (init_linux.c): it never reads the Go
// heap. Copying the heap cost the server on every command: the clone
// write-protected each of its pages, and every page the server's Go code
// wrote afterwards (its next request's allocations, on the call's path)
// took a copy-on-write fault and a TLB shoot-down of the other CPUs. So
// the heap's arenas are marked MADV_DONTFORK before each init is cloned:
// they are not in the init at all. An init that touched one anyway would
// die of SIGSEGV: a setup error before it says it is ready, a sandbox error
// (its namespace dies with it) after; never a weaker sandbox. The mark
// lasts only for the clone, under syscall.ForkLock:
// Go's own fork of a process that runs Go code before its exec (os/exec
// with a new user namespace, which docket uses for the helper) needs the
// heap in its child, and takes that lock to fork.

// heapArenaBytes is the Go runtime's heap arena size on 64-bit Linux: the
// heap is reserved and mapped in aligned chunks of this size.
const heapArenaBytes = 64 << 20

// heapRereadEvery is how often a kept range is looked up again: a heap
// that grew into a new arena while fresh objects still land in the old
// one would otherwise be copied (only a lost saving, never a fault).
const heapRereadEvery = 16

// leaveHeapOut marks the Go heap's arenas (the address-contiguous
// anonymous mappings around a fresh heap object, cut to whole arenas) not
// to be copied into a child, until restore. The caller holds
// syscall.ForkLock, which also guards cache (nil: none). need are
// addresses of what the child will read (the C memory it is given): a
// range holding one of them is not marked (never seen: the kernel places
// C's mappings far from the Go heap, but a glibc arena is an anonymous,
// 64 MiB-aligned mapping too). It returns the range marked, empty when
// none was.
func leaveHeapOut(cache *HeapCache, need ...uintptr) (HeapRange, error) {
	p := uintptr(unsafe.Pointer(heapObject()))
	var r HeapRange
	if cache != nil {
		cache.spawn++
		if cache.r.Lo <= p && p < cache.r.Hi && cache.spawn%heapRereadEvery != 0 {
			r = cache.r
		}
	}
	if r.Hi == 0 {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			return HeapRange{}, fmt.Errorf("sandbox init: reading the server's mappings: %w", err)
		}
		var ok bool
		if r, ok = heapRun(maps, p); !ok {
			return HeapRange{}, nil
		}
		if cache != nil {
			cache.r = r
		}
	}
	for _, a := range need {
		if r.Lo <= a && a < r.Hi {
			return HeapRange{}, nil
		}
	}
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, r.Lo, r.Hi-r.Lo, unix.MADV_DONTFORK); e != 0 && !errors.Is(e, unix.ENOMEM) {
		// ENOMEM: a hole in the range; the mappings around it are marked.
		return HeapRange{}, fmt.Errorf("sandbox init: madvise(MADV_DONTFORK) of the heap: %w", e)
	}
	return r, nil
}

// restore lets the range be copied into children again. The pages were
// never write-protected for the clone, so nothing is left to undo.
func (r HeapRange) restore() {
	if r.Hi > r.Lo {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, r.Lo, r.Hi-r.Lo, unix.MADV_DOFORK)
	}
}

// heapObject returns a fresh object on the heap.
//
//go:noinline
func heapObject() *[64]byte { return new([64]byte) }

// mapping is one line of /proc/self/maps.
type mapping struct {
	lo, hi uintptr
	anon   bool
}

// heapRun finds, in a /proc/self/maps text, the run of address-contiguous
// anonymous mappings holding p, cut to whole arenas; false when p is in
// none, or the cut leaves p out.
func heapRun(maps []byte, p uintptr) (HeapRange, bool) {
	var ms []mapping
	for _, line := range bytes.Split(maps, []byte{'\n'}) {
		if m, ok := parseMapping(line); ok {
			ms = append(ms, m)
		}
	}
	at := -1
	for i, m := range ms {
		if m.lo <= p && p < m.hi {
			at = i
			break
		}
	}
	if at < 0 || !ms[at].anon {
		return HeapRange{}, false
	}
	lo, hi := ms[at].lo, ms[at].hi
	for i := at - 1; i >= 0 && ms[i].anon && ms[i].hi == lo; i-- {
		lo = ms[i].lo
	}
	for i := at + 1; i < len(ms) && ms[i].anon && ms[i].lo == hi; i++ {
		hi = ms[i].hi
	}
	lo = (lo + heapArenaBytes - 1) &^ (heapArenaBytes - 1)
	hi &^= heapArenaBytes - 1
	if p < lo || p >= hi {
		return HeapRange{}, false
	}
	return HeapRange{Lo: lo, Hi: hi}, true
}

// parseMapping reads "lo-hi perms offset dev inode [path]"; a mapping is
// anonymous when it has no inode and no name ([heap], [stack] and the like
// are not the Go heap).
func parseMapping(line []byte) (mapping, bool) {
	f := bytes.Fields(line)
	if len(f) < 5 {
		return mapping{}, false
	}
	lohi := bytes.SplitN(f[0], []byte{'-'}, 2)
	if len(lohi) != 2 {
		return mapping{}, false
	}
	lo, err1 := strconv.ParseUint(string(lohi[0]), 16, 64)
	hi, err2 := strconv.ParseUint(string(lohi[1]), 16, 64)
	if err1 != nil || err2 != nil || hi <= lo {
		return mapping{}, false
	}
	anon := string(f[4]) == "0" && len(f) == 5
	return mapping{lo: uintptr(lo), hi: uintptr(hi), anon: anon}, true
}
