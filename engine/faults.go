package engine

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Faults is told when the engine passes a named point, so a test can kill
// the process exactly there. Points: "after:<event>" once a transition of
// that event is appended, "before_commit" and "after_commit" around every
// durable commit, "while_running" once a process has been started.
type Faults interface {
	Hit(point string)
}

// FaultPlan fires its action at the Nth pass of one point. It is parsed
// from a spec "point" or "point@N" (N counts from 1).
type FaultPlan struct {
	Point  string
	N      int
	Action func(point string)

	mu   sync.Mutex
	seen int
}

// ParseFaultPlan parses "point" or "point@N".
func ParseFaultPlan(spec string, action func(string)) (*FaultPlan, error) {
	p := &FaultPlan{Point: spec, N: 1, Action: action}
	if at := strings.LastIndexByte(spec, '@'); at > 0 {
		n, err := strconv.Atoi(spec[at+1:])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("fault point %q: the count after @ must be a positive number", spec)
		}
		p.Point, p.N = spec[:at], n
	}
	return p, nil
}

// Hit counts passes of the plan's point and fires on the Nth.
func (p *FaultPlan) Hit(point string) {
	if point != p.Point {
		return
	}
	p.mu.Lock()
	p.seen++
	fire := p.seen == p.N
	p.mu.Unlock()
	if fire {
		p.Action(point)
	}
}

type noFaults struct{}

func (noFaults) Hit(string) {}

// FaultLog records every point passed, one per line, so a crash test can
// learn from a clean run exactly which points a session reaches.
type FaultLog struct {
	mu sync.Mutex
	W  io.Writer
}

// Hit writes the point.
func (l *FaultLog) Hit(point string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.W, point)
}

// Faults fans a point out to several hooks.
type FaultSet []Faults

// Hit tells every hook.
func (s FaultSet) Hit(point string) {
	for _, f := range s {
		f.Hit(point)
	}
}
