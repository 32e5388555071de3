package replay

import (
	"fmt"
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

// add files a network record under the call its body names, the rule the
// audit follows too; checkNetworkRecords has already refused a record
// filed under another call than the one it names.
func (f *networkFeed) add(r events.Record, callID string, body any) {
	f.calls[callID] = append(f.calls[callID], networkRecord{seq: r.Seq, at: time.Unix(0, r.At), body: body})
}

// networkCall returns the call a network record's body names and the host
// it was about; ok is false for any other record.
func networkCall(body any) (callID, host string, ok bool) {
	switch v := body.(type) {
	case *events.NetworkDecision:
		return v.CallID, v.Host, true
	case *events.NetworkConnection:
		return v.CallID, v.Host, true
	}
	return "", "", false
}

// checkNetworkRecords refuses a network record filed under another call
// than the one its body names, or under none: the journal's record says
// one call, the audit would show another, and the replay would feed it
// back under a third. The egress proxy writes both from one id, so a
// disagreement is a damaged or forged journal.
func checkNetworkRecords(dec []decoded) *Divergence {
	for _, d := range dec {
		if !networkKind(d.rec.Kind) {
			continue
		}
		id, host, _ := networkCall(d.value())
		if id == "" || id != d.rec.CallID {
			return &Divergence{Seq: d.rec.Seq, CallID: d.rec.CallID, Kind: d.rec.Kind, Want: canonical(d.value()),
				Got: fmt.Sprintf("(a network record for host %s filed under call %q that names call %q: the journal, the audit and the replay would each put it under another call)", host, d.rec.CallID, id)}
		}
	}
	return nil
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
