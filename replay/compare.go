package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
)

// errCrashed stops the engine where the recorded session's process stopped.
var errCrashed = errors.New("replay: the recorded process stopped here")

// Divergence is the first record where the replayed engine and the journal
// disagree.
type Divergence struct {
	Seq    uint64 // the journal record that differs (0: the journal had none)
	CallID string
	Kind   events.RecordKind
	Want   string // the journal's record, canonical JSON
	Got    string // the replay's record, canonical JSON
	// Path is the journal's file, when the replay read one (VerifyFile).
	Path string
}

func (d *Divergence) Error() string {
	var b strings.Builder
	call := d.CallID
	if call == "" {
		call = "(session)"
	}
	fmt.Fprintf(&b, "replay diverged at seq %d, call %s, record %s", d.Seq, call, d.Kind)
	if d.Path != "" {
		fmt.Fprintf(&b, " (journal %s)", d.Path)
	}
	b.WriteString("\n")
	b.WriteString(lineDiff(d.Want, d.Got))
	return b.String()
}

// decoded is a journal record; body is decoded up front for inputs (they
// are fed back) and on demand for decisions (compared as bytes).
type decoded struct {
	rec  events.Record
	body any
}

func (d decoded) value() any {
	if d.body != nil {
		return d.body
	}
	b, err := d.rec.Decode()
	if err != nil {
		return fmt.Sprintf("(undecodable: %v)", err)
	}
	return b
}

// comparingLog stands in for the journal during verify replay: each append
// is compared with the next record of the same stream (the session's or one
// call's) in the journal.
type comparingLog struct {
	mu      sync.Mutex
	streams map[string][]decoded // by call id, in seq order
	pos     map[string]int
	// ran holds the calls the replay wrote a record of its own for (not
	// a network record fed back): network records of any other call are
	// of a call that never ran, and unconsumed reports them.
	ran     map[string]bool
	stopAt  uint64 // seq of the session_resumed that ends this segment (0: none)
	crashed bool
	// closeCutShort: the session's close is being replayed, and a stream
	// the journal has no further record for is where the close stopped
	// recording (errCrashed), not a divergence.
	closeCutShort bool
	diverged      *Divergence
	compared      int
	enc           events.BodyEncoder // guarded by mu, as Append is

	// The end of the segment (segment.go): want records to produce, end
	// closed once they all are, stall the bound on no progress.
	want      int
	end       chan struct{}
	ended     bool
	lastMatch time.Time
	stall     time.Duration

	// stopper stops the driven turn where the operator or a deadline
	// stopped it (stop.go).
	stopper turnStopper
}

func newComparingLog(recs []decoded, stopAt uint64, stall time.Duration) *comparingLog {
	if stall <= 0 {
		stall = defaultStall
	}
	// Two passes, one backing array: a journal has a stream per call, and
	// growing each by append was most of what setting up a replay
	// allocated.
	sizes := map[string]int{}
	for _, r := range recs {
		sizes[r.rec.CallID]++
	}
	l := &comparingLog{streams: make(map[string][]decoded, len(sizes)), pos: make(map[string]int, len(sizes)),
		ran: map[string]bool{}, stopAt: stopAt, end: make(chan struct{}), stall: stall}
	backing := make([]decoded, len(recs))
	for _, r := range recs {
		st, ok := l.streams[r.rec.CallID]
		if !ok {
			n := sizes[r.rec.CallID]
			st, backing = backing[:0:n], backing[n:]
		}
		l.streams[r.rec.CallID] = append(st, r)
	}
	return l
}

func (l *comparingLog) crash() {
	l.mu.Lock()
	l.crashed = true
	l.mu.Unlock()
}

// closing says the session's close is replayed next: see closeCutShort.
func (l *comparingLog) closing() {
	l.mu.Lock()
	l.closeCutShort = true
	l.mu.Unlock()
}

// skipTo marks every record before seq as already written (by an earlier
// segment of the replay).
func (l *comparingLog) skipTo(seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, st := range l.streams {
		i := 0
		for i < len(st) && st[i].rec.Seq < seq {
			i++
		}
		l.pos[id] = i
	}
}

// Append compares the record with the journal's. A record past the end
// of its stream in a segment that a resume ended is where the process
// stopped for this call: the call alone stops (errCrashed), and the
// others go on to where they stopped. (Append must not wait: the engine
// calls it under its recorder's lock.)
func (l *comparingLog) Append(at time.Time, callID string, body any) (events.Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.diverged != nil {
		return events.Record{}, l.diverged
	}
	if l.crashed {
		return events.Record{}, errCrashed
	}
	kind, _ := events.KindOf(body)
	st := l.streams[callID]
	i := l.pos[callID]
	if !networkKind(kind) {
		i = l.pastNetwork(st, i)
	}
	if l.stopAt > 0 && (i >= len(st) || st[i].rec.Seq >= l.stopAt) {
		return events.Record{}, errCrashed
	}
	if i >= len(st) && l.closeCutShort {
		l.crashed = true
		return events.Record{}, errCrashed
	}
	if i >= len(st) {
		l.diverged = &Divergence{CallID: callID, Kind: kind, Want: "(the journal has no further record for this stream)", Got: canonical(body)}
		return events.Record{}, l.diverged
	}
	want := st[i]
	// Bodies encode canonically (a decode-encode round trip is byte-identical),
	// so equal bytes are equal payloads; JSON is rendered only for a diff.
	got, err := l.enc.Encode(body)
	if err != nil || want.rec.Kind != kind || !bytes.Equal(got, want.rec.Body) {
		l.diverged = &Divergence{Seq: want.rec.Seq, CallID: callID, Kind: want.rec.Kind, Want: canonical(want.value()), Got: canonical(body)}
		return events.Record{}, l.diverged
	}
	l.pos[callID] = i + 1
	if !networkKind(kind) {
		l.ran[callID] = true
	}
	l.compared++
	l.progress()
	return want.rec, nil
}

// networkKind reports the egress proxy's records: inputs a command's
// connections wrote while it ran.
func networkKind(k events.RecordKind) bool {
	return k == events.KindNetworkDecision || k == events.KindNetworkConnection
}

// pastNetwork returns the position after the network records at i that
// the replay did not feed back: a long-lived process (exec_command) goes
// on making connections after its call's outcome, so they sit between
// the call's later records at no point the replay can reproduce. They are
// inputs, taken as recorded; the records around them are still compared.
func (l *comparingLog) pastNetwork(st []decoded, i int) int {
	for i < len(st) && networkKind(st[i].rec.Kind) && (l.stopAt == 0 || st[i].rec.Seq < l.stopAt) {
		i++
	}
	return i
}

// Commit does nothing: the journal is already durable.
func (l *comparingLog) Commit() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.diverged != nil {
		return l.diverged
	}
	return nil
}

// unconsumed returns the first journal record (before stopAt) the replay
// never produced.
func (l *comparingLog) unconsumed() *Divergence {
	l.mu.Lock()
	defer l.mu.Unlock()
	var first *decoded
	ghost := false
	for id, st := range l.streams {
		i := l.pos[id]
		if !l.ran[id] && i < len(st) && networkKind(st[i].rec.Kind) && (l.stopAt == 0 || st[i].rec.Seq < l.stopAt) {
			// Network records of a call the replay never ran: the
			// connections of no command of this session.
			if first == nil || st[i].rec.Seq < first.rec.Seq {
				first, ghost = &st[i], true
			}
			continue
		}
		i = l.pastNetwork(st, i)
		if i < len(st) && (l.stopAt == 0 || st[i].rec.Seq < l.stopAt) && st[i].rec.Kind != events.KindSessionResumed {
			if first == nil || st[i].rec.Seq < first.rec.Seq {
				first, ghost = &st[i], false
			}
		}
	}
	if first == nil {
		return nil
	}
	got := "(the replay produced no such record)"
	if ghost {
		_, host, _ := networkCall(first.value())
		got = fmt.Sprintf("(a network record for host %s under call %s, which the replay never ran)", host, first.rec.CallID)
	}
	return &Divergence{Seq: first.rec.Seq, CallID: first.rec.CallID, Kind: first.rec.Kind, Want: canonical(first.value()), Got: got}
}

// canonical renders a body as indented JSON with sorted keys: equal
// payloads give equal text, and a diff of two is readable.
func canonical(body any) string {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Sprintf("%#v", body)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}

// lineDiff shows the lines that differ between two renderings.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := max(len(w), len(g))
	for i := 0; i < n; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		if i < len(w) {
			fmt.Fprintf(&b, "  journal: %s\n", strings.TrimSpace(wl))
		}
		if i < len(g) {
			fmt.Fprintf(&b, "  replay:  %s\n", strings.TrimSpace(gl))
		}
	}
	if b.Len() == 0 {
		return "  (record kinds differ)\n"
	}
	return b.String()
}
