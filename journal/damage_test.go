package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/docket-engine/docket/journal/internal/boltfile"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	bolt "go.etcd.io/bbolt"
)

// damageRecords is the size of the journals the damage tests break: enough
// for a branch page, overflow pages and free pages, small enough that a
// sweep over every 512-byte truncation stays quick under -race.
const damageRecords = 160

// damageCase is one damaged copy of a fixture's file.
type damageCase struct {
	name string
	data []byte
}

// tryDamaged writes data where fx's file was and checks every way of opening
// it, in dir: Scan yields a prefix of the original records and a typed error
// consistent with it; Open and OpenReadOnly give a typed error or a journal
// that reads a prefix too. It returns the number of records Scan yielded and
// its error.
func tryDamaged(t *testing.T, dir string, fx fixture, c damageCase) (int, error) {
	t.Helper()
	path := filepath.Join(dir, fx.id+Ext)
	if err := os.WriteFile(path, c.data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := scanAll(path)
	checkPrefix(t, c.name+": Scan", fx, got)
	checkScanError(t, c.name+": Scan", path, len(got), err)
	if err == nil && len(got) == 0 {
		t.Fatalf("%s: Scan yielded nothing and no error", c.name)
	}
	for _, open := range []struct {
		name string
		fn   func(string) (*Journal, error)
	}{{"OpenReadOnly", OpenReadOnly}, {"Open", Open}} {
		j, oerr := open.fn(path)
		if oerr != nil {
			if strings.Contains(oerr.Error(), "runtime error") {
				t.Fatalf("%s: %s: a runtime error instead of what is damaged: %v", c.name, open.name, oerr)
			}
			var de *DamagedError
			var nj *NotJournalError
			if !errors.As(oerr, &de) && !errors.As(oerr, &nj) {
				t.Fatalf("%s: %s: untyped error %T: %v", c.name, open.name, oerr, oerr)
			}
			if !strings.Contains(oerr.Error(), path) {
				t.Fatalf("%s: %s: %q does not name the file", c.name, open.name, oerr)
			}
			continue
		}
		recs, rerr := j.All()
		checkPrefix(t, c.name+": "+open.name+".All", fx, recs)
		if rerr != nil {
			checkScanError(t, c.name+": "+open.name+".All", path, len(recs), rerr)
		}
		j.Close()
	}
	return len(got), err
}

// highWater is where the pages of fx's last commit end; bbolt grows files
// in chunks, so the rest of the file is unused.
func highWater(t *testing.T, fx fixture) int {
	m0, ok0 := boltfile.ParseMeta(fx.bytes)
	m1, ok1 := boltfile.ParseMeta(fx.bytes[boltfile.DefaultPageSize:])
	if !ok0 || !ok1 {
		t.Fatal("fixture has an invalid meta page")
	}
	return int(max(m0.PgID, m1.PgID)) * boltfile.DefaultPageSize
}

func TestTruncatedJournals(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, damageRecords)
	dir := t.TempDir()
	size, used := len(fx.bytes), highWater(t, fx)
	lengths := []int{1, 15, 16, 17, 100, 511, 4095, 4097, 8191, 8193, 12289, used - 1, used + 1, size - 4097, size - 1}
	for n := 512; n < used; n += 512 {
		lengths = append(lengths, n)
	}
	fds := openFDs(t)
	late := 0
	outcomes := tally{}
	defer func() { t.Logf("%d truncations: %v", len(lengths), outcomes) }()
	for _, n := range lengths {
		k, err := tryDamaged(t, dir, fx, damageCase{fmt.Sprintf("truncated to %d of %d bytes", n, size), fx.bytes[:n]})
		outcomes.add(err)
		if err == nil && k != len(fx.records) {
			t.Fatalf("truncated to %d: no error but only %d of %d records", n, k, len(fx.records))
		}
		if n >= used/2 {
			late++
			if k == 0 {
				t.Fatalf("truncated to %d of %d bytes: no record salvaged from the intact first half", n, size)
			}
		}
	}
	if late < 10 {
		t.Fatalf("only %d late truncations tried", late)
	}
	if now := openFDs(t); now > fds+2 {
		t.Fatalf("damaged opens leaked file descriptors: %d before, %d after", fds, now)
	}
}

// tally counts Scan outcomes by error type, for the test log.
type tally map[string]int

func (t tally) add(err error) {
	switch {
	case err == nil:
		t["no error"]++
	case errors.As(err, new(*DamagedError)):
		t["DamagedError"]++
	case errors.As(err, new(*NotJournalError)):
		t["NotJournalError"]++
	default:
		t[fmt.Sprintf("%T", err)]++
	}
}

// pageRecords maps each page of a fixture's file to the seqs of the records
// its leaf holds (inline or not), from a raw scan of the intact file.
func pageRecords(fx fixture) map[int][]uint64 {
	out := map[int][]uint64{}
	for p := 0; (p+1)*boltfile.DefaultPageSize <= len(fx.bytes); p++ {
		page := fx.bytes[p*boltfile.DefaultPageSize : (p+1)*boltfile.DefaultPageSize]
		if binary.LittleEndian.Uint16(page[8:]) != boltfile.LeafPageFlag {
			continue
		}
		found := map[uint64]events.Record{}
		overflow := int(binary.LittleEndian.Uint32(page[12:]))
		end := min(len(fx.bytes), (p+1+overflow)*boltfile.DefaultPageSize)
		boltfile.ScanLeaf(fx.bytes[p*boltfile.DefaultPageSize:end], found, 0)
		for s := range found {
			out[p] = append(out[p], s)
		}
		sort.Slice(out[p], func(i, j int) bool { return out[p][i] < out[p][j] })
	}
	return out
}

// livePages returns the pages bbolt's tree reaches from the newest meta,
// with their flags.
func livePages(t *testing.T, fx fixture) map[int]uint16 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "copy.docket")
	if err := os.WriteFile(path, fx.bytes, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[int]uint16{}
	err = db.View(func(tx *bolt.Tx) error {
		for id := 0; ; id++ {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				return err
			}
			if info.Type == "branch" || info.Type == "leaf" {
				out[id] = map[string]uint16{"branch": 1, "leaf": 2}[info.Type]
				for o := 1; o <= info.OverflowCount; o++ {
					out[id+o] = 3
				}
				id += info.OverflowCount
			}
		}
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("no live pages found: %v", err)
	}
	return out
}

func TestBitFlippedJournals(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, damageRecords)
	dir := t.TempDir()
	pages := highWater(t, fx) / boltfile.DefaultPageSize
	inPage := pageRecords(fx)
	live := livePages(t, fx)
	beforeLast := fx.commits[len(fx.commits)-2]
	rng := rand.New(rand.NewPCG(1, 2))
	flip := func(offs ...int) []byte {
		d := bytes.Clone(fx.bytes)
		for _, o := range offs {
			d[o] ^= 1 << (o % 8)
		}
		return d
	}
	fds := openFDs(t)
	// Meta pages: every byte of each meta, then both at once.
	for _, meta := range []int{0, 1} {
		for o := 0; o < boltfile.MetaOffset+boltfile.MetaSize; o++ {
			off := meta*boltfile.DefaultPageSize + o
			k, _ := tryDamaged(t, dir, fx, damageCase{fmt.Sprintf("meta %d byte %d flipped", meta, o), flip(off)})
			if uint64(k) < beforeLast {
				t.Fatalf("meta %d byte %d flipped: %d records, but %d were committed before the last commit", meta, o, k, beforeLast)
			}
		}
	}
	for _, o := range []int{boltfile.MetaOffset, boltfile.MetaOffset + 16, boltfile.MetaOffset + 40, boltfile.MetaOffset + 56} {
		k, err := tryDamaged(t, dir, fx, damageCase{fmt.Sprintf("both metas byte %d flipped", o), flip(o, boltfile.DefaultPageSize+o)})
		if !errors.As(err, new(*DamagedError)) || k != len(fx.records) {
			t.Fatalf("both metas flipped at %d: %d records, %v; want every record salvaged and a DamagedError", o, k, err)
		}
	}
	outcomes := tally{}
	defer func() { t.Logf("data page flips: %v", outcomes) }()
	// Data pages: the header, the element table and the data of each.
	for p := 2; p < pages; p++ {
		offs := []int{0, 8, 10, 12, 16, 20, 24, 28, 40, 100, 1000 + rng.IntN(3000), 4095}
		if live[p] == 0 {
			offs = []int{8, 1000 + rng.IntN(3000)} // a free page: nothing reads it
		}
		for _, o := range offs {
			off := p*boltfile.DefaultPageSize + o
			name := fmt.Sprintf("page %d (%s) byte %d flipped", p, kindOfPage(live, p), o)
			k, err := tryDamaged(t, dir, fx, damageCase{name, flip(off)})
			outcomes[kindOfPage(live, p)+": "+outcomeName(err)]++
			switch {
			case err == nil && k != len(fx.records):
				t.Fatalf("%s: no error but %d of %d records", name, k, len(fx.records))
			case live[p] == 1 && k != len(fx.records):
				// A branch page holds no records: the boltfile.Salvage finds them all.
				t.Fatalf("%s: %d of %d records", name, k, len(fx.records))
			case live[p] == 2 && len(inPage[p]) > 0 && uint64(k) < inPage[p][0]-1:
				// Everything before the damaged leaf's first record is intact.
				t.Fatalf("%s: %d records, but the damaged leaf starts at seq %d", name, k, inPage[p][0])
			}
		}
	}
	if now := openFDs(t); now > fds+2 {
		t.Fatalf("damaged opens leaked file descriptors: %d before, %d after", fds, now)
	}
}

func outcomeName(err error) string {
	t := tally{}
	t.add(err)
	for k := range t {
		return k
	}
	return ""
}

func kindOfPage(live map[int]uint16, p int) string {
	switch live[p] {
	case 1:
		return "branch"
	case 2:
		return "leaf"
	case 3:
		return "overflow"
	}
	return "unused"
}

// TestZeroedPages blanks whole pages, as a lost write would.
func TestZeroedPages(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, damageRecords)
	dir := t.TempDir()
	live := livePages(t, fx)
	for p := 0; p < highWater(t, fx)/boltfile.DefaultPageSize; p++ {
		d := bytes.Clone(fx.bytes)
		clear(d[p*boltfile.DefaultPageSize : (p+1)*boltfile.DefaultPageSize])
		k, err := tryDamaged(t, dir, fx, damageCase{fmt.Sprintf("page %d (%s) zeroed", p, kindOfPage(live, p)), d})
		if p >= 2 && live[p] == 0 && (err != nil || k != len(fx.records)) {
			t.Fatalf("zeroing unused page %d lost records: %d, %v", p, k, err)
		}
	}
}

// A damaged record in the middle stops reading there, names the seq, and
// leaves everything before it readable through the journal API too.
func TestDamagedRecordStopsEach(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, 60)
	w := fx.wires[29] // seq 30
	i := bytes.Index(fx.bytes, w)
	if i < 0 || bytes.Contains(fx.bytes[i+1:], w) {
		t.Fatal("test needs seq 30 stored exactly once")
	}
	d := bytes.Clone(fx.bytes)
	d[i+len(w)-1] ^= 0x40 // inside the CRC
	path := writeFile(t, fx.id+Ext, d)
	j, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	recs, err := j.All()
	var de *DamagedError
	if !errors.As(err, &de) || de.LastGoodSeq != 29 || len(recs) != 29 || !errors.Is(err, events.ErrCorrupt) {
		t.Fatalf("All: %d records, %v; want 29 and a DamagedError after seq 29 wrapping ErrCorrupt", len(recs), err)
	}
	if want := fmt.Sprintf("journal %s is damaged after seq 29: corrupt record 30: CRC-32C mismatch", path); !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("%q, want it to start %q", err, want)
	}
	if got, err := j.Range(25, 40); !errors.As(err, &de) || de.LastGoodSeq != 29 || len(got) != 5 {
		t.Fatalf("Range across the damage: %d records, %v", len(got), err)
	}
	if got, err := j.Range(31, 40); err != nil || len(got) != 10 {
		t.Fatalf("Range after the damage (seeks past it): %d records, %v", len(got), err)
	}
	if got, err := j.Range(1, 29); err != nil || len(got) != 29 {
		t.Fatalf("Range before the damage: %d, %v", len(got), err)
	}
}

// TestBranchPointersOutOfTheTree rewires the records tree's branch page the
// ways that send bbolt's cursor round a loop or off the map: each must be
// reported as damage, and every record still salvaged from the intact leaves.
func TestBranchPointersOutOfTheTree(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, damageRecords)
	dir := t.TempDir()
	live := livePages(t, fx)
	branch := -1
	for p, kind := range live {
		if kind == 1 {
			branch = p
		}
	}
	if branch < 0 {
		t.Fatal("fixture has no branch page")
	}
	elem := func(i int) int {
		return branch*boltfile.DefaultPageSize + boltfile.PageHeaderSize + i*boltfile.BranchElemSize + 8
	}
	sibling := binary.LittleEndian.Uint64(fx.bytes[elem(1):])
	for _, tt := range []struct {
		name string
		to   uint64
		want string
	}{
		{"itself", uint64(branch), "reached twice"},
		{"meta page 0", 0, "outside 2.."},
		{"meta page 1", 1, "outside 2.."},
		{"past the end", 1 << 40, "outside 2.."},
		{"a leaf it already has", sibling, "reached twice"},
	} {
		d := bytes.Clone(fx.bytes)
		binary.LittleEndian.PutUint64(d[elem(0):], tt.to)
		k, err := tryDamaged(t, dir, fx, damageCase{"branch element 0 points at " + tt.name, d})
		if !errors.As(err, new(*DamagedError)) || !strings.Contains(err.Error(), tt.want) || k != len(fx.records) {
			t.Errorf("branch element 0 points at %s: %d of %d records, %v; want all and a DamagedError saying %q", tt.name, k, len(fx.records), err, tt.want)
		}
	}
}

// A tail that vanishes from the records tree without any page looking
// broken (a leaf's element count damaged, say) is caught against the
// committed seq, and a resumed writer does not reuse the lost seqs.
func TestMissingTailIsDamage(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, 30)
	db, err := bolt.Open(fx.path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for s := uint64(26); s <= 30; s++ {
			if err := tx.Bucket(bucketRecords).Delete(seqKey(s)); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(fx.path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.All()
	r.Close()
	checkPrefix(t, "All", fx, got)
	var de *DamagedError
	if !errors.As(err, &de) || len(got) != 25 || !strings.Contains(err.Error(), "records 26 to 30 are missing") {
		t.Fatalf("All: %d records, %v; want 25 and a DamagedError naming 26 to 30", len(got), err)
	}
	// Scan goes on to boltfile.Salvage: the deleted records' old pages are free, not
	// yet reused, and still hold them intact.
	got, err = scanAll(fx.path)
	checkPrefix(t, "Scan", fx, got)
	if !errors.As(err, &de) || len(got) < 25 || de.LastGoodSeq != uint64(len(got)) {
		t.Fatalf("Scan: %d records, %v; want at least 25 and a DamagedError", len(got), err)
	}
	j, err := Open(fx.path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.NextSeq() != 31 {
		t.Fatalf("resumed writer would append seq %d, reusing a committed seq", j.NextSeq())
	}
}

// Scan hands back the callback's own error untouched, on the bbolt path and
// on the boltfile.Salvage path alike, so it is never mistaken for damage.
func TestScanReturnsTheCallbacksError(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, damageRecords)
	truncated := filepath.Join(t.TempDir(), "cut"+Ext)
	if err := os.WriteFile(truncated, fx.bytes[:highWater(t, fx)-boltfile.DefaultPageSize], 0o600); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	for _, path := range []string{fx.path, truncated} {
		for _, at := range []uint64{1, 3, 100} {
			n := 0
			err := Scan(path, 1, func(r events.Record) error {
				n++
				if r.Seq == at {
					return stop
				}
				return nil
			})
			if err != stop || n != int(at) {
				t.Fatalf("%s: stop at %d: got %v after %d records", filepath.Base(path), at, err, n)
			}
		}
	}
}
