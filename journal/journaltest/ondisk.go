// Package journaltest helps tests look at a journal file as a crash at
// this instant would leave it. It reads the file page by page without
// taking its lock, so a test can check the write-ahead rule from inside a
// running session.
package journaltest

import (
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/internal/boltfile"
)

// OnDisk returns the records that are on disk now, read page by page from
// the file without taking its lock: what a crash at this instant would
// leave. Records come back in seq order, contiguous from 1.
func OnDisk(path string) ([]events.Record, error) {
	found, err := boltfile.Salvage(path)
	if err != nil {
		return nil, err
	}
	out := make([]events.Record, 0, len(found))
	for seq := uint64(1); ; seq++ {
		r, ok := found[seq]
		if !ok {
			break
		}
		out = append(out, r)
	}
	return out, nil
}
