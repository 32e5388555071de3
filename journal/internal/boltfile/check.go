package boltfile

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"syscall"
)

// More of bbolt's file format: a meta page's fields, as offsets into the
// page, and the page flags bbolt itself checks with assertions.
const (
	MetaOffset       = PageHeaderSize
	MetaSize         = 64
	metaChecksumAt   = 56 // the checksum covers the meta's first 56 bytes
	boltVersion      = 2
	branchPageFlag   = 0x01
	freelistPageFlag = 0x10
	BranchElemSize   = 16
	bucketHeaderSize = 16
	noFreelist       = 0xffffffffffffffff
	maxTreeDepth     = 32 // far beyond any real tree: 4 KiB pages fan out by 100s
)

// Meta is the part of a bbolt meta page that Check needs.
type Meta struct {
	PageSize uint32
	Root     uint64 // the root bucket's page
	Freelist uint64
	PgID     uint64 // high-water mark: pages below it are in use
	TxID     uint64
}

// ParseMeta decodes the meta page at the start of page, if it is valid by
// bbolt's own rules (magic, version, FNV-64a checksum).
func ParseMeta(page []byte) (Meta, bool) {
	if len(page) < MetaOffset+MetaSize {
		return Meta{}, false
	}
	m := page[MetaOffset : MetaOffset+MetaSize]
	if binary.LittleEndian.Uint32(m[0:]) != Magic || binary.LittleEndian.Uint32(m[4:]) != boltVersion {
		return Meta{}, false
	}
	h := fnv.New64a()
	h.Write(m[:metaChecksumAt])
	if h.Sum64() != binary.LittleEndian.Uint64(m[metaChecksumAt:]) {
		return Meta{}, false
	}
	return Meta{
		PageSize: binary.LittleEndian.Uint32(m[8:]),
		Root:     binary.LittleEndian.Uint64(m[16:]),
		Freelist: binary.LittleEndian.Uint64(m[32:]),
		PgID:     binary.LittleEndian.Uint64(m[40:]),
		TxID:     binary.LittleEndian.Uint64(m[48:]),
	}, true
}

// Check checks, on the locked file, what bbolt trusts blindly. bbolt
// reads pages through mmap with no bounds checks and walks its B+trees with
// no cycle checks, so a damaged file can fault inside bolt.Open (where the
// open file and its lock could not be released) or send a cursor round a
// loop forever. Check finds the meta page in force as bbolt would, checks
// that the file holds every page it claims, and walks every page reachable
// from it once: branch pages (a damaged pointer there is what loops) and the
// leaves of the root bucket (they hold the bucket headers) in full, and of
// the other leaves only the header, because their elements are checked as
// they are read (every record's CRC and seq). For a writer it checks every
// leaf in full too (a commit rewrites leaves bbolt parsed) and that the
// freelist names no page in use, which a commit would overwrite.
//
// The pages are read through a read-only mapping of the file, so a header
// check costs a memory read, not a system call and a page copy: opening a
// journal to read one call stays cheap however long the session was.
func Check(f *os.File, forWriter bool) (*Lazy, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()
	m, pageSize, err := currentMeta(f, size)
	if err != nil {
		return nil, err
	}
	if size < 2*pageSize {
		return nil, fmt.Errorf("the file is %d bytes, shorter than its two meta pages", size)
	}
	if m.PgID > uint64(size/pageSize) {
		return nil, fmt.Errorf("the file is %d bytes but its last commit needs %d: it was truncated", size, m.PgID*uint64(pageSize))
	}
	if m.PgID < 3 {
		return nil, fmt.Errorf("its meta page claims %d pages, fewer than a bbolt file has", m.PgID)
	}
	w := &walker{f: f, meta: m, pageSize: pageSize, full: forWriter, seen: make([]uint64, (m.PgID+63)/64),
		buckets: map[string]bucketRoot{}}
	if forWriter {
		// The writer's walk reads every page: map them rather than copy.
		data, err := syscall.Mmap(int(f.Fd()), 0, int(m.PgID)*int(pageSize), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			return nil, fmt.Errorf("map the file: %w", err)
		}
		defer func() { _ = syscall.Munmap(data) }() // a read-only mapping: nothing to flush
		w.data = data
	}
	w.claim(0)
	w.claim(1)
	if err := w.tree(m.Root, 0, 0); err != nil {
		return nil, err
	}
	if forWriter {
		if m.Freelist != noFreelist {
			return nil, w.checkFreelist()
		}
		return nil, nil
	}
	return newLazy(f.Name(), m, pageSize, w.buckets)
}

// currentMeta returns the meta page bbolt would use and the page size.
func currentMeta(f *os.File, size int64) (Meta, int64, error) {
	var first [MetaOffset + MetaSize]byte
	n, _ := f.ReadAt(first[:], 0)
	m0, ok0 := ParseMeta(first[:n])
	pageSize := int64(DefaultPageSize)
	if ok0 {
		pageSize = int64(m0.PageSize)
	} else {
		// Like bbolt, find the second meta page by trying each page size.
		for ps := int64(1024); ps < size-1024 && ps <= 1<<24; ps <<= 1 {
			var buf [MetaOffset + MetaSize]byte
			if n, _ := f.ReadAt(buf[:], ps); n == len(buf) {
				if m, ok := ParseMeta(buf[:]); ok && int64(m.PageSize) == ps {
					pageSize = ps
					break
				}
			}
		}
	}
	if pageSize < 512 || pageSize > 1<<24 || pageSize&(pageSize-1) != 0 {
		return Meta{}, 0, fmt.Errorf("its meta page claims a page size of %d bytes", pageSize)
	}
	var second [MetaOffset + MetaSize]byte
	n, _ = f.ReadAt(second[:], pageSize)
	m1, ok1 := ParseMeta(second[:n])
	ok0 = ok0 && int64(m0.PageSize) == pageSize
	ok1 = ok1 && int64(m1.PageSize) == pageSize
	// bbolt uses the valid meta with the higher txid.
	switch {
	case ok0 && ok1 && m1.TxID > m0.TxID, ok1 && !ok0:
		return m1, pageSize, nil
	case ok0:
		return m0, pageSize, nil
	}
	return Meta{}, 0, fmt.Errorf("neither bbolt meta page is valid")
}

// bucketRoot is where a top-level bucket's tree starts and how many branch
// levels it has above its leaves.
type bucketRoot struct {
	page   uint64
	height int
}

// walker visits the pages of a bbolt file's trees, each at most once.
type walker struct {
	buckets  map[string]bucketRoot // top-level buckets with a tree of their own
	f        *os.File
	data     []byte // for a writer, the file's pages below the meta's high-water mark
	meta     Meta
	pageSize int64
	full     bool     // check every leaf's elements, not just the root bucket's
	seen     []uint64 // a bit per page: visited
}

// span returns n pages from page id: from the mapping, or read from the
// file (a reader's walk reads only branch pages, a few hundred at most for
// any journal, and mapping a large file costs more than that).
func (w *walker) span(id uint64, n int64) ([]byte, error) {
	start := int64(id) * w.pageSize
	if w.data != nil {
		return w.data[start : start+n*w.pageSize], nil
	}
	b := make([]byte, n*w.pageSize)
	if _, err := w.f.ReadAt(b, start); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	return b, nil
}

func (w *walker) claimed(p uint64) bool { return w.seen[p/64]&(1<<(p%64)) != 0 }
func (w *walker) claim(p uint64)        { w.seen[p/64] |= 1 << (p % 64) }

// header checks page id's header and claims it and its overflow pages as
// visited; it returns the page's flags and overflow count.
func (w *walker) header(id uint64) (flags uint16, overflow uint64, err error) {
	if id < 2 || id >= w.meta.PgID {
		return 0, 0, fmt.Errorf("a tree points at page %d, outside 2..%d", id, w.meta.PgID-1)
	}
	hdr, err := w.span(id, 1)
	if err != nil {
		return 0, 0, err
	}
	if got := binary.LittleEndian.Uint64(hdr[0:]); got != id {
		return 0, 0, fmt.Errorf("page %d says it is page %d", id, got)
	}
	overflow = uint64(binary.LittleEndian.Uint32(hdr[12:]))
	if overflow >= w.meta.PgID-id {
		return 0, 0, fmt.Errorf("page %d claims %d overflow pages, past the end", id, overflow)
	}
	for p := id; p <= id+overflow; p++ {
		if w.claimed(p) {
			return 0, 0, fmt.Errorf("page %d is reached twice (a loop or a shared page)", p)
		}
		w.claim(p)
	}
	return binary.LittleEndian.Uint16(hdr[8:]), overflow, nil
}

// page returns page id with its overflow pages, claimed as visited.
func (w *walker) page(id uint64) ([]byte, error) {
	_, overflow, err := w.header(id)
	if err != nil {
		return nil, err
	}
	return w.span(id, int64(overflow+1))
}

// tree checks the B+tree rooted at page id; nested is how many buckets
// deep the tree is (0: the root bucket, whose leaves hold bucket headers).
func (w *walker) tree(id uint64, depth, nested int) error {
	if nested > 0 && !w.full {
		h, err := w.height(id)
		if err != nil {
			return err
		}
		return w.branches(id, depth, h)
	}
	if depth > maxTreeDepth {
		return fmt.Errorf("trees nest deeper than %d pages", maxTreeDepth)
	}
	flags, overflow, err := w.header(id)
	if err != nil {
		return err
	}
	switch flags {
	case branchPageFlag:
		return w.branchChildren(id, func(child uint64) error { return w.tree(child, depth+1, nested) })
	case LeafPageFlag:
		if nested > 0 && !w.full {
			return nil // its elements are checked as they are read
		}
		p, err := w.span(id, int64(overflow+1))
		if err != nil {
			return err
		}
		return w.leaf(id, p, depth, nested)
	default:
		return fmt.Errorf("page %d in a tree has page flags %#x", id, flags)
	}
}

// leaf checks a leaf page's elements and the buckets it holds.
func (w *walker) leaf(id uint64, p []byte, depth, nested int) error {
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if PageHeaderSize+count*LeafElemSize > len(p) {
		return fmt.Errorf("leaf page %d claims %d elements", id, count)
	}
	for i := 0; i < count; i++ {
		e := PageHeaderSize + i*LeafElemSize
		flags := binary.LittleEndian.Uint32(p[e:])
		pos := int(binary.LittleEndian.Uint32(p[e+4:]))
		ksize := int(binary.LittleEndian.Uint32(p[e+8:]))
		vsize := int(binary.LittleEndian.Uint32(p[e+12:]))
		end := e + pos + ksize + vsize
		if end > len(p) || end < e || pos < 0 || ksize < 0 || vsize < 0 {
			return fmt.Errorf("leaf page %d element %d lies outside the page", id, i)
		}
		if flags&BucketLeafFlag == 0 {
			continue
		}
		v := p[e+pos+ksize : end]
		if len(v) < bucketHeaderSize {
			return fmt.Errorf("leaf page %d element %d is a bucket of %d bytes", id, i, len(v))
		}
		if root := binary.LittleEndian.Uint64(v); root != 0 {
			if nested == 0 && !w.full {
				h, err := w.height(root)
				if err != nil {
					return err
				}
				w.buckets[string(p[e+pos:e+pos+ksize])] = bucketRoot{page: root, height: h}
			}
			if err := w.tree(root, depth+1, nested+1); err != nil {
				return err
			}
			continue
		}
		// An inline bucket: its one leaf page is stored in the value.
		inline := v[bucketHeaderSize:]
		if len(inline) < PageHeaderSize || binary.LittleEndian.Uint16(inline[8:]) != LeafPageFlag {
			return fmt.Errorf("leaf page %d element %d is an inline bucket without a leaf", id, i)
		}
		if depth > maxTreeDepth {
			return fmt.Errorf("buckets nest deeper than %d", maxTreeDepth)
		}
		if err := w.leaf(id, inline, depth+1, nested+1); err != nil {
			return err
		}
	}
	return nil
}

// checkFreelist checks the freelist page a writer loads on open: bbolt asserts
// its flag and trusts its count, and a free page that is in use would be
// overwritten by the next commit.
func (w *walker) checkFreelist() error {
	id := w.meta.Freelist
	if id < w.meta.PgID && w.claimed(id) {
		return fmt.Errorf("the freelist page %d is also in a tree", id)
	}
	p, err := w.page(id)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	if flags := binary.LittleEndian.Uint16(p[8:]); flags != freelistPageFlag {
		return fmt.Errorf("freelist page %d has page flags %#x", id, flags)
	}
	count, skip := uint64(binary.LittleEndian.Uint16(p[10:])), uint64(0)
	if count == 0xffff {
		count, skip = binary.LittleEndian.Uint64(p[PageHeaderSize:]), 1
	}
	if count > w.meta.PgID || PageHeaderSize+(count+skip)*8 > uint64(len(p)) {
		return fmt.Errorf("freelist page %d claims %d free pages", id, count)
	}
	for i := uint64(0); i < count; i++ {
		free := binary.LittleEndian.Uint64(p[PageHeaderSize+(skip+i)*8:])
		if free < 2 || free >= w.meta.PgID || w.claimed(free) {
			return fmt.Errorf("freelist page %d lists page %d, which is in use or outside the file", id, free)
		}
	}
	return nil
}

// height follows a tree's first children down to its leaves and returns
// how many branch levels lie above them. It claims nothing: the walk that
// follows does. bbolt's trees are balanced, so every leaf of the tree is
// that many levels down.
func (w *walker) height(id uint64) (int, error) {
	var path []uint64
	for h := 0; h <= maxTreeDepth; h++ {
		if id < 2 || id >= w.meta.PgID {
			return 0, fmt.Errorf("a tree points at page %d, outside 2..%d", id, w.meta.PgID-1)
		}
		if slices.Contains(path, id) || w.claimed(id) {
			return 0, fmt.Errorf("page %d is reached twice (a loop or a shared page)", id)
		}
		path = append(path, id)
		p, err := w.span(id, 1)
		if err != nil {
			return 0, err
		}
		switch binary.LittleEndian.Uint16(p[8:]) {
		case LeafPageFlag:
			return h, nil
		case branchPageFlag:
			if binary.LittleEndian.Uint16(p[10:]) == 0 {
				return 0, fmt.Errorf("branch page %d has no elements", id)
			}
			id = binary.LittleEndian.Uint64(p[PageHeaderSize+8:])
		default:
			return 0, fmt.Errorf("page %d in a tree has page flags %#x", id, binary.LittleEndian.Uint16(p[8:]))
		}
	}
	return 0, fmt.Errorf("trees nest deeper than %d pages", maxTreeDepth)
}

// branches checks the branch pages of a tree whose leaves lie rem levels
// below page id, without reading the leaves: a leaf is only claimed (so
// that no two pointers share it), and its header is checked when it is
// read (Lazy.Ensure). A branch pointer can only loop through other branch
// pages, and every one of those is read here.
func (w *walker) branches(id uint64, depth, rem int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("trees nest deeper than %d pages", maxTreeDepth)
	}
	if rem == 0 {
		if id < 2 || id >= w.meta.PgID {
			return fmt.Errorf("a tree points at page %d, outside 2..%d", id, w.meta.PgID-1)
		}
		if w.claimed(id) {
			return fmt.Errorf("page %d is reached twice (a loop or a shared page)", id)
		}
		w.claim(id)
		return nil
	}
	flags, _, err := w.header(id)
	if err != nil {
		return err
	}
	if flags != branchPageFlag {
		return fmt.Errorf("page %d is %d levels above the leaves but has page flags %#x", id, rem, flags)
	}
	return w.branchChildren(id, func(child uint64) error { return w.branches(child, depth+1, rem-1) })
}

// branchChildren checks a branch page's element table (its count and that
// each key lies inside the page) and visits each child page in order.
// A branch page never has overflow pages in bbolt: 16-byte elements plus
// keys fit a page, and a damaged overflow count has been bounded before.
func (w *walker) branchChildren(id uint64, visit func(child uint64) error) error {
	p, err := w.span(id, 1)
	if err != nil {
		return err
	}
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if count == 0 || PageHeaderSize+count*BranchElemSize > len(p) {
		return fmt.Errorf("branch page %d claims %d elements", id, count)
	}
	for i := 0; i < count; i++ {
		e := PageHeaderSize + i*BranchElemSize
		pos, ksize := int(binary.LittleEndian.Uint32(p[e:])), int(binary.LittleEndian.Uint32(p[e+4:]))
		if e+pos+ksize > len(p) || e+pos+ksize < e {
			return fmt.Errorf("branch page %d element %d lies outside the page", id, i)
		}
		if err := visit(binary.LittleEndian.Uint64(p[e+8:])); err != nil {
			return err
		}
	}
	return nil
}
