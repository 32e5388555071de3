// Package faultinject arms the engine's fault points (engine.Faults) from
// the environment, for crash tests: kill the process at a named point, log
// the points passed, commit the journal where another call's commit could.
// docket links it only when built with -tags docketfault, so a production
// binary ignores these variables.
package faultinject

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/docket-engine/docket/engine"
)

// FromEnv arms the crash-testing hooks the environment names (getenv):
// DOCKET_CRASH_AT=point[@N] kills this process with SIGKILL the Nth time
// the engine passes point, DOCKET_FAULT_LOG=FILE appends every point passed
// to FILE, and DOCKET_FAULT_COMMIT_AT=point,... commits the journal at
// those points. What cannot be armed is said on stderr. Nil when none is
// set.
func FromEnv(getenv func(string) string, stderr io.Writer) engine.Faults {
	var set faultSet
	if path := getenv("DOCKET_FAULT_LOG"); path != "" {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			set = append(set, &faultLog{w: f})
		} else {
			fmt.Fprintln(stderr, "docket: DOCKET_FAULT_LOG:", err)
		}
	}
	if spec := getenv("DOCKET_CRASH_AT"); spec != "" {
		p, err := parseFaultPlan(spec, func(string) {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL) // cannot fail for our own pid
		})
		if err != nil {
			fmt.Fprintln(stderr, "docket:", err)
		} else {
			set = append(set, p)
		}
	}
	if spec := getenv("DOCKET_FAULT_COMMIT_AT"); spec != "" {
		set = append(set, commitAt(strings.Split(spec, ",")))
	}
	if len(set) == 0 {
		return nil
	}
	return set
}

// commitAt names the points (DOCKET_FAULT_COMMIT_AT=point,...) where the
// engine makes what it appended durable before passing them, as another
// call's commit could; with DOCKET_CRASH_AT at the same point it leaves
// exactly the journal that interleaving and a crash would.
type commitAt []string

// Hit does nothing: commitAt only answers CommitAt.
func (commitAt) Hit(string) {}

// CommitAt reports whether point is one of the named ones.
func (c commitAt) CommitAt(point string) bool {
	for _, p := range c {
		if p == point {
			return true
		}
	}
	return false
}

// faultPlan fires its action at the Nth pass of one point. It is parsed
// from a spec "point" or "point@N" (N counts from 1).
type faultPlan struct {
	point  string
	n      int
	action func(point string)

	mu   sync.Mutex
	seen int
}

// parseFaultPlan parses "point" or "point@N".
func parseFaultPlan(spec string, action func(string)) (*faultPlan, error) {
	p := &faultPlan{point: spec, n: 1, action: action}
	if at := strings.LastIndexByte(spec, '@'); at > 0 {
		n, err := strconv.Atoi(spec[at+1:])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("fault point %q: the count after @ must be a positive number", spec)
		}
		p.point, p.n = spec[:at], n
	}
	return p, nil
}

// Hit counts passes of the plan's point and fires on the Nth.
func (p *faultPlan) Hit(point string) {
	if point != p.point {
		return
	}
	p.mu.Lock()
	p.seen++
	fire := p.seen == p.n
	p.mu.Unlock()
	if fire {
		p.action(point)
	}
}

// faultLog records every point passed, one per line, so a crash test can
// learn from a clean run exactly which points a session reaches.
type faultLog struct {
	mu sync.Mutex
	w  io.Writer
}

// Hit writes the point. A failed write shows up in the crash test as a
// point list that lacks what the scenario must reach.
func (l *faultLog) Hit(point string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, point)
}

// faultSet fans a point out to several hooks.
type faultSet []engine.Faults

// Hit tells every hook.
func (s faultSet) Hit(point string) {
	for _, f := range s {
		f.Hit(point)
	}
}

// CommitAt asks every hook that can say.
func (s faultSet) CommitAt(point string) bool {
	for _, f := range s {
		if fc, ok := f.(engine.FaultCommits); ok && fc.CommitAt(point) {
			return true
		}
	}
	return false
}

// RequirementsFiles is DOCKET_TEST_REQUIREMENTS=FILE (getenv): a managed
// requirements file in place of /etc/docket/requirements.toml, so a test
// can pin what a session may choose without writing to /etc. Nil when
// unset. Like the fault points, only a docketfault build asks.
func RequirementsFiles(getenv func(string) string) []string {
	if path := getenv("DOCKET_TEST_REQUIREMENTS"); path != "" {
		return []string{path}
	}
	return nil
}
