//go:build linux && cgo

package initc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestHeapRunCutsTheRunAroundTheHeapToWholeArenas(t *testing.T) {
	const a = heapArenaBytes
	line := func(lo, hi uintptr, rest string) string {
		return fmt.Sprintf("%x-%x %s\n", lo, hi, rest)
	}
	base := uintptr(0x10f0d8000000) // arena-aligned, as the runtime reserves
	for _, tc := range []struct {
		name   string
		maps   string
		p      uintptr
		want   HeapRange
		wantOK bool
	}{
		{
			name: "reserved, used and reserved parts of one arena make one range",
			maps: line(0x400000, 0x403000, "r--p 00000000 fd:01 123 /bin/docket") +
				line(base, base+0xc00000, "---p 00000000 00:00 0") +
				line(base+0xc00000, base+0x1800000, "rw-p 00000000 00:00 0") +
				line(base+0x1800000, base+a, "---p 00000000 00:00 0") +
				line(0x7efb34000000, 0x7efb34021000, "rw-p 00000000 00:00 0"),
			p: base + 0xc00100, want: HeapRange{Lo: base, Hi: base + a}, wantOK: true,
		},
		{
			name: "two arenas in a row are both marked",
			maps: line(base, base+a, "rw-p 00000000 00:00 0") +
				line(base+a, base+2*a, "rw-p 00000000 00:00 0"),
			p: base + a + 8, want: HeapRange{Lo: base, Hi: base + 2*a}, wantOK: true,
		},
		{
			name: "a run that is not whole arenas is cut to the arenas in it",
			maps: line(base-0x1000, base+a+0x2000, "rw-p 00000000 00:00 0"),
			p:    base + 8, want: HeapRange{Lo: base, Hi: base + a}, wantOK: true,
		},
		{
			name: "a file mapping next to the run is not part of it",
			maps: line(base-a, base, "rw-p 00000000 fd:01 77 /some/file") +
				line(base, base+a, "rw-p 00000000 00:00 0"),
			p: base + 8, want: HeapRange{Lo: base, Hi: base + a}, wantOK: true,
		},
		{
			name: "a pointer in a named mapping marks nothing",
			maps: line(0x0c3fa000, 0x0c41b000, "rw-p 00000000 00:00 0 [heap]"),
			p:    0x0c3fa010,
		},
		{
			name: "a pointer in a run smaller than an arena marks nothing",
			maps: line(0x7efb34000000, 0x7efb34021000, "rw-p 00000000 00:00 0"),
			p:    0x7efb34000010,
		},
		{
			name: "a pointer in no mapping marks nothing",
			maps: line(base, base+a, "rw-p 00000000 00:00 0"),
			p:    base + a + 8,
		},
		{
			name: "lines that do not parse are skipped",
			maps: "garbage\n" + line(base, base+a, "rw-p 00000000 00:00 0") + "zz-yy r 0 0 0\n",
			p:    base + 8, want: HeapRange{Lo: base, Hi: base + a}, wantOK: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := heapRun([]byte(tc.maps), tc.p)
			if ok != tc.wantOK || got != tc.want {
				t.Fatalf("heapRun = %#x, %v; want %#x, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestLeaveHeapOutMarksTheGoHeapNotToBeCopiedUntilRestored checks the
// kernel's own word for it: the "dc" (VM_DONTCOPY) flag in /proc/self/smaps
// on the mappings of the Go heap, which a clone without CLONE_VM (an init)
// then does not get; and that the flag is gone after restore, so that a
// later fork that runs Go code in its child still has the heap.
func TestLeaveHeapOutMarksTheGoHeapNotToBeCopiedUntilRestored(t *testing.T) {
	obj := heapObject()
	p := uintptr(unsafe.Pointer(obj))
	if dontCopy(t, p) {
		t.Fatal("the heap is marked before anything marked it")
	}
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	r, err := leaveHeapOut(nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lo == 0 || p < r.Lo || p >= r.Hi {
		t.Fatalf("marked %#x, which does not hold the heap object at %#x", r, p)
	}
	if !dontCopy(t, p) {
		t.Fatalf("the mapping of the heap object at %#x is not marked dc in /proc/self/smaps", p)
	}
	// The binary's code, which the init runs, stays copied.
	fn := reflect.ValueOf(heapRun).Pointer()
	if dontCopy(t, fn) {
		t.Fatalf("the binary's code at %#x was marked too", fn)
	}
	r.restore()
	if dontCopy(t, p) {
		t.Fatalf("the heap object's mapping at %#x is still marked dc after restore", p)
	}
}

// dontCopy says whether /proc/self/smaps flags the mapping holding p "dc".
func dontCopy(t *testing.T, p uintptr) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	in := false
	for sc.Scan() {
		line := sc.Text()
		if m, ok := parseMapping([]byte(line)); ok {
			in = m.lo <= p && p < m.hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line+" ", " dc ")
		}
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", p)
	return false
}

func TestLeaveHeapOutKeepsTheRangeAndLooksAgainWhenTheHeapIsElsewhere(t *testing.T) {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	var cache HeapCache
	first, err := leaveHeapOut(&cache)
	if err != nil {
		t.Fatal(err)
	}
	first.restore()
	if first.Hi == 0 || cache.r != first {
		t.Fatalf("first spawn: marked %#x, kept %#x", first, cache.r)
	}
	// A kept range that does not hold the heap is looked up again.
	cache.r = HeapRange{Lo: 0x1000, Hi: 0x2000}
	again, err := leaveHeapOut(&cache)
	if err != nil {
		t.Fatal(err)
	}
	again.restore()
	if again != first || cache.r != first {
		t.Fatalf("after a stale range: marked %#x, kept %#x; want %#x", again, cache.r, first)
	}
	p := uintptr(unsafe.Pointer(heapObject()))
	if p < again.Lo || p >= again.Hi {
		t.Fatalf("marked %#x, which does not hold a fresh heap object at %#x", again, p)
	}
}

func TestLeaveHeapOutMarksNothingThatHoldsWhatTheInitReads(t *testing.T) {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	p := uintptr(unsafe.Pointer(heapObject()))
	r, err := leaveHeapOut(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	r.restore()
	if r != (HeapRange{}) {
		t.Fatalf("marked %#x, which holds %#x the init was to read", r, p)
	}
	if dontCopy(t, p) {
		t.Fatalf("the mapping at %#x is marked dc", p)
	}
}
