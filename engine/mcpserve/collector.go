package mcpserve

import (
	"sync"

	"github.com/docket-engine/docket/engine"
)

// collector is a session's observer: it keeps, for the call under way,
// its completion notice and the calls that parked.
type collector struct {
	mu     sync.Mutex
	callID string
	done   engine.Notice
	parked []string
}

func newCollector() *collector { return &collector{} }

// Notify implements engine.Observer.
func (o *collector) Notify(n engine.Notice) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch n.Type {
	case engine.NoticeCallCompleted:
		if n.CallID == o.callID {
			o.done = n
		}
	case engine.NoticeParked:
		o.parked = append(o.parked, n.CallID)
	}
}

// begin starts collecting for callID.
func (o *collector) begin(callID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.callID, o.done, o.parked = callID, engine.Notice{}, nil
}

// end returns what was collected since begin.
func (o *collector) end() (engine.Notice, []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.done, o.parked
}
