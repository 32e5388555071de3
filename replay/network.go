package replay

import (
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
)

// networkFeed holds the journal's network records by call: the answers
// about hosts (network_decision) and each connection's verdict
// (network_connection). Both are inputs, written while the call's command
// ran; verify replay runs no command and no proxy, opens no socket and
// asks nobody: it feeds them back, in their order, where the call's run
// would have written them.
type networkFeed struct {
	mu    sync.Mutex
	calls map[string][]networkRecord
	next  map[string]int
}

type networkRecord struct {
	seq  uint64
	at   time.Time
	body any
}

func newNetworkFeed() *networkFeed {
	return &networkFeed{calls: map[string][]networkRecord{}, next: map[string]int{}}
}

func (f *networkFeed) add(r events.Record, body any) {
	f.calls[r.CallID] = append(f.calls[r.CallID], networkRecord{seq: r.Seq, at: time.Unix(0, r.At), body: body})
}

// feed appends the call's network records after from and before before
// (0: no bound) that were not fed yet.
func (f *networkFeed) feed(log *comparingLog, callID string, from, before uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	recs := f.calls[callID]
	i := f.next[callID]
	for ; i < len(recs); i++ {
		r := recs[i]
		if r.seq <= from {
			continue
		}
		if before != 0 && r.seq >= before {
			break
		}
		if _, err := log.Append(r.at, callID, r.body); err != nil {
			f.next[callID] = i
			return err
		}
	}
	f.next[callID] = i
	return nil
}
