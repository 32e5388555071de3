package journaltest

import (
	"fmt"
	"os"

	"github.com/docket-engine/docket/journal/internal/boltfile"
	bolt "go.etcd.io/bbolt"
)

// Page kinds PageKinds reports.
const (
	PageMeta     = "meta"
	PageFreelist = "freelist"
	PageBranch   = "branch"
	PageLeaf     = "leaf"
	PageOverflow = "overflow"
)

// PageKinds returns, for an intact closed journal, the pages of each kind
// bbolt uses from its newest meta page, and the page size: what a test
// damages to cover every page type.
func PageKinds(path string) (map[string][]int, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	m0, ok0 := boltfile.ParseMeta(b)
	m1, ok1 := boltfile.ParseMeta(b[boltfile.DefaultPageSize:])
	if !ok0 || !ok1 {
		return nil, 0, fmt.Errorf("%s: a meta page is invalid", path)
	}
	m := m0
	if m1.TxID > m0.TxID {
		m = m1
	}
	out := map[string][]int{PageMeta: {0, 1}, PageFreelist: {int(m.Freelist)}}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = db.Close() }() // read-only
	err = db.View(func(tx *bolt.Tx) error {
		for id := 2; id < int(m.PgID); id++ { // bounded by the file's page count
			info, err := tx.Page(id)
			if err != nil || info == nil {
				return err
			}
			if info.Type == PageBranch || info.Type == PageLeaf {
				out[info.Type] = append(out[info.Type], id)
				for o := 1; o <= info.OverflowCount; o++ {
					out[PageOverflow] = append(out[PageOverflow], id+o)
				}
				id += info.OverflowCount
			}
		}
		return nil
	})
	return out, int(m.PageSize), err
}
