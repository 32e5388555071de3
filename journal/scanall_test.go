package journal

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/internal/boltfile"
)

// scanAllOf runs ScanAll and checks what any damaged journal must give:
// yielded records are originals in rising seq order, every seq up to Last
// is either yielded or inside a gap with a reason, and an error is typed
// and names the file.
func scanAllOf(t *testing.T, what, path string, fx fixture) (*ReadReport, []events.Record) {
	t.Helper()
	var got []events.Record
	rep, err := ScanAll(path, func(r events.Record) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		var nj *NotJournalError
		if !errors.As(err, &nj) || !strings.Contains(err.Error(), path) {
			t.Fatalf("%s: ScanAll: %T %v; want a report, or a NotJournalError naming the file", what, err, err)
		}
		return rep, got
	}
	if rep.Read != len(got) {
		t.Fatalf("%s: report says %d read, %d yielded", what, rep.Read, len(got))
	}
	prev := uint64(0)
	yielded := map[uint64]bool{}
	for _, r := range got {
		w, err := r.Marshal()
		if err != nil || r.Seq <= prev || r.Seq > uint64(len(fx.records)) || !bytes.Equal(w, fx.wires[r.Seq-1]) {
			t.Fatalf("%s: yielded seq %d after %d, not an original record in order", what, r.Seq, prev)
		}
		prev = r.Seq
		yielded[r.Seq] = true
	}
	// Every seq up to Last is read or in a gap, and none is both: a sweep
	// over the runs (never over the seqs: a damaged Last can be huge).
	type run struct{ from, to uint64 }
	var runs []run
	for _, g := range rep.Gaps {
		if g.Why == "" || g.From == 0 || (g.To != 0 && g.To < g.From) {
			t.Fatalf("%s: gap %+v", what, g)
		}
		to := g.To
		if to == 0 {
			to = math.MaxUint64
		}
		runs = append(runs, run{g.From, to})
	}
	for s := range yielded {
		runs = append(runs, run{s, s})
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].from < runs[j].from })
	covered := uint64(0)
	for _, r := range runs {
		if r.from <= covered {
			t.Fatalf("%s: seq %d is both read and reported missing (report %+v)", what, r.from, rep)
		}
		if r.from > covered+1 && covered < rep.Last {
			t.Fatalf("%s: seq %d was neither read nor reported missing (report %+v)", what, covered+1, rep)
		}
		covered = r.to
	}
	if covered < rep.Last {
		t.Fatalf("%s: seqs from %d to %d were neither read nor reported missing", what, covered+1, rep.Last)
	}
	if rep.Complete() != (len(got) == len(fx.records)) && rep.Last == uint64(len(fx.records)) {
		t.Fatalf("%s: complete=%v with %d of %d read", what, rep.Complete(), len(got), len(fx.records))
	}
	return rep, got
}

// Flipping a bit in any one record hides that record only: every other
// record is read, and the report names the seq, its page and the file.
func TestScanAllReadsPastEachBadRecord(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, 60)
	dir := t.TempDir()
	for seq := 1; seq <= len(fx.records); seq++ {
		w := fx.wires[seq-1]
		i := bytes.LastIndex(fx.bytes, w)
		if i < 0 {
			t.Fatalf("seq %d not stored", seq)
		}
		d := bytes.Clone(fx.bytes)
		for off := i; off >= 0; off = bytes.LastIndex(fx.bytes[:off], w) {
			d[off+len(w)/2] ^= 0x08 // every copy, stale ones included
		}
		path := writeFileIn(t, dir, fx.id+Ext, d)
		what := fmt.Sprintf("record %d flipped", seq)
		rep, got := scanAllOf(t, what, path, fx)
		if len(got) != len(fx.records)-1 || rep.Last != uint64(len(fx.records)) || len(rep.Gaps) != 1 {
			t.Fatalf("%s: read %d of %d, last %d, gaps %v; want every other record", what, len(got), len(fx.records), rep.Last, rep.Gaps)
		}
		g := rep.Gaps[0]
		if g.From != uint64(seq) || g.To != uint64(seq) || !strings.Contains(g.Why, fmt.Sprintf("seq %d on page ", seq)) {
			t.Fatalf("%s: gap %v does not name the record and its page", what, g)
		}
		if rep.Err == nil || !strings.Contains(rep.Err.Error(), path) {
			t.Fatalf("%s: damage %v does not name the file", what, rep.Err)
		}
	}
}

// Every page type damaged in turn (meta, freelist, branch, leaf, overflow):
// ScanAll returns, accounts for every seq, and never panics or hangs.
func TestScanAllOverEveryPageType(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, damageRecords)
	dir := t.TempDir()
	live := livePages(t, fx)
	m, ok := boltfile.ParseMeta(fx.bytes[newestMeta(t, fx)*boltfile.DefaultPageSize:])
	if !ok {
		t.Fatal("no meta")
	}
	kinds := map[string][]int{"meta": {0, 1}, "freelist": {int(m.Freelist)}}
	for p := range live {
		name := kindOfPage(live, p)
		kinds[name] = append(kinds[name], p)
	}
	for _, k := range []string{"meta", "freelist", "branch", "leaf", "overflow"} {
		if len(kinds[k]) == 0 {
			t.Fatalf("the fixture has no %s page", k)
		}
		for _, p := range kinds[k] {
			for _, o := range []int{0, 8, 10, 12, 16, 20, 24, 40, 60, 100, 2000, 4095} {
				d := bytes.Clone(fx.bytes)
				d[p*boltfile.DefaultPageSize+o] ^= 0x10
				path := writeFileIn(t, dir, fx.id+Ext, d)
				what := fmt.Sprintf("%s page %d byte %d flipped", k, p, o)
				rep, got := scanAllOf(t, what, path, fx)
				if rep == nil {
					continue
				}
				if !rep.Complete() && rep.Err == nil {
					t.Fatalf("%s: gaps %v without the damage that caused them", what, rep.Gaps)
				}
				if k != "leaf" && k != "overflow" && len(got) != len(fx.records) {
					// Meta, freelist and branch pages hold no records: a
					// raw scan finds them all.
					t.Fatalf("%s: %d of %d records", what, len(got), len(fx.records))
				}
			}
		}
	}
}

// writeFileIn writes b as name in dir and returns its path.
func writeFileIn(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
