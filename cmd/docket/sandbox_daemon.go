package main

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/sandboxd"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/gitwalk"
)

// idleEnv sets how long the sandbox daemon waits for a call before it
// exits (a Go duration; default defaultDaemonIdle).
const idleEnv = "DOCKET_SANDBOX_DAEMON_IDLE"

const defaultDaemonIdle = 10 * time.Minute

// maxDaemonWalks bounds the git walks the daemon keeps: one per set of
// writable roots, the least recently used dropped beyond it.
const maxDaemonWalks = 8

// sandboxDaemon is what the daemon keeps across `docket sandbox` calls:
// the sandbox servers and the git walks, as a session keeps them.
type sandboxDaemon struct {
	srv *sandbox.Servers
	// probed is the machine's sandbox capabilities, probed once, as a
	// session does.
	probed *sandbox.Capabilities
	// self is what callers are compared with (sandboxd.CheckPeer).
	self *sandboxd.Identity

	mu   sync.Mutex
	kept map[string]*keptWalk
	// retired are walks dropped from kept; a call still using one may
	// walk again into it, so they are closed again at the end.
	retired []*gitwalk.Cache
}

type keptWalk struct {
	cache *gitwalk.Cache
	used  time.Time
}

// servers is nil outside the daemon: each call starts its own helper.
func (d *sandboxDaemon) servers() *sandbox.Servers {
	if d == nil {
		return nil
	}
	return d.srv
}

// caps is nil outside the daemon: each call probes.
func (d *sandboxDaemon) caps() *sandbox.Capabilities {
	if d == nil {
		return nil
	}
	return d.probed
}

// walks returns the kept walk for plan's roots; nil outside the daemon.
func (d *sandboxDaemon) walks(plan events.SandboxPlan) *gitwalk.Cache {
	if d == nil || !plan.Sandboxed() {
		return nil
	}
	key := strings.Join(plan.WritableRoots, "\x00")
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.kept[key]; w != nil {
		w.used = time.Now()
		return w.cache
	}
	if d.kept == nil {
		d.kept = map[string]*keptWalk{}
	}
	if len(d.kept) >= maxDaemonWalks {
		var oldKey string
		var old *keptWalk
		for k, w := range d.kept {
			if old == nil || w.used.Before(old.used) {
				oldKey, old = k, w
			}
		}
		delete(d.kept, oldKey)
		// A call still using it keeps working: a closed cache walks afresh.
		_ = old.cache.Close()
		d.retired = append(d.retired, old.cache)
	}
	w := &keptWalk{cache: &gitwalk.Cache{}, used: time.Now()}
	d.kept[key] = w
	return w.cache
}

func (d *sandboxDaemon) close() error {
	d.mu.Lock()
	kept, retired := d.kept, d.retired
	d.kept, d.retired = nil, nil
	d.mu.Unlock()
	errs := []error{d.srv.Close()}
	for _, w := range kept {
		errs = append(errs, w.cache.Close())
	}
	for _, c := range retired {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
