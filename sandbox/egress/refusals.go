package egress

import (
	"fmt"
	"sync"
)

// Past a call's first refusals, refusals are counted per host: at most
// summaryHosts hosts by name (the rest together), a summary recorded
// every summaryEvery refusals of one host and at the end of the call's
// Serve. A loop of refusals costs a record per thousand, and a loop over
// made-up names a bounded map.
const (
	summaryHosts = 64
	summaryEvery = 1000
)

type refusalsKey struct{}

// refusals is one Serve's (one call's) tally of refusals.
type refusals struct {
	inFull int

	mu   sync.Mutex
	seen int
	// noAnswers counts the policy's own denials (nobody could be asked,
	// or nobody answered) the asker met: only the first inFull are
	// journaled as decisions (JournalingAsker).
	noAnswers int
	// hosts counts the refusals not yet recorded, by host; "" is every
	// host past the first summaryHosts.
	hosts map[string]*tally
	order []string
}

// tally is the refusals of one host not yet recorded: their number and
// the last, whose protocol, port and reason a summary shows.
type tally struct {
	n    int
	last Event
}

// admit says what to record for refusal ev: ev itself (one of the first
// inFull), a summary (the host's count reached summaryEvery), or nothing
// (counted).
func (r *refusals) admit(ev Event) *Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	if r.seen <= r.inFull {
		return &ev
	}
	key := ev.Host
	if _, ok := r.hosts[key]; !ok && len(r.hosts) >= summaryHosts {
		key = ""
	}
	if r.hosts == nil {
		r.hosts = map[string]*tally{}
	}
	t, ok := r.hosts[key]
	if !ok {
		t = &tally{}
		r.hosts[key] = t
		r.order = append(r.order, key)
	}
	t.n++
	t.last = ev
	if t.n < summaryEvery {
		return nil
	}
	s := summary(key, t, r.inFull)
	t.n = 0
	return &s
}

// admitNoAnswer says whether a denial nobody answered is journaled as a
// decision: one of the call's first inFull.
func (r *refusals) admitNoAnswer() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noAnswers++
	return r.noAnswers <= r.inFull
}

// drain returns a summary of every host with refusals not yet recorded,
// in the order the hosts were first refused, and forgets them.
func (r *refusals) drain(callID string) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, key := range r.order {
		if t := r.hosts[key]; t.n > 0 {
			s := summary(key, t, r.inFull)
			s.CallID = callID
			out = append(out, s)
		}
	}
	r.hosts, r.order = nil, nil
	return out
}

// summary is the record of t's refusals of host key ("" for the hosts
// past the first summaryHosts).
func summary(key string, t *tally, inFull int) Event {
	ev := Event{Request: Request{CallID: t.last.CallID, Protocol: t.last.Protocol, Host: key, Port: t.last.Port, Method: t.last.Method}, Refusals: t.n}
	what := key
	if key == "" {
		what, ev.Port, ev.Method = "other hosts", 0, ""
	}
	ev.Rule = fmt.Sprintf("%d refusal(s) of %s counted, not recorded one by one (a call's first %d refusals are); the last: %s", t.n, what, inFull, t.last.Rule)
	return ev
}
