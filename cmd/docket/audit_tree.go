package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/docket-engine/docket/replay/audit"
)

// runAuditTree audits a session and each subagent under it, in tree order:
// a heading per subagent (its path, session and the parent call that
// started it), then its calls, each named by its path from the root
// (writer/call_1), so "why did this run unsandboxed" is answered for every
// call of the tree. With jsonOut it prints a JSON array of the sessions'
// audit objects, in the same order, calls named by path and each child
// with its "parent". An incomplete audit of any session exits 1.
func runAuditTree(ctx context.Context, a *app, homeFlag, ref string, jsonOut bool, opts audit.Options) error {
	home, sf, err := auditedSession(homeFlag, ref)
	if err != nil {
		return err
	}
	nodes, treeErr := replay.Tree(sf.Path, func(id string) (string, error) {
		f, err := journal.Find(home, id)
		return f.Path, err
	})
	out := bufio.NewWriter(a.stdout)
	var incomplete []string
	if jsonOut {
		fmt.Fprint(out, "[")
	}
	for i, n := range nodes {
		var w audit.Sink
		switch {
		case jsonOut:
			if i > 0 {
				fmt.Fprint(out, ",")
			}
			fmt.Fprint(out, "\n")
			w = audit.NewJSONWriter(out)
		default:
			if n.Depth > 0 {
				fmt.Fprintf(out, "\n%s subagent %s: session %s, started by call %s\n", strings.Repeat("=", n.Depth+1), strings.TrimSuffix(n.Prefix, "/"), n.SessionID, n.ParentCall)
			}
			w = audit.NewTextWriter(out, opts)
		}
		var tail tailSink
		sink := audit.Tee(&tail, prefixSink{prefix: n.Prefix, next: w})
		if err := audit.Stream(ctx, n.Path, opts, sink); err != nil {
			return &exitError{code: exitFailed, err: errors.Join(fmt.Errorf("audit %s: %w", n.Path, err), out.Flush())}
		}
		if d := tail.damage(); d.Incomplete() {
			incomplete = append(incomplete, fmt.Sprintf("%s (damaged after seq %d: %s)", n.Path, d.LastGoodSeq, d.Error))
		}
	}
	if jsonOut {
		fmt.Fprint(out, "\n]\n")
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if treeErr != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("the tree of subagents of %s: %w", sf.Path, treeErr)}
	}
	if len(incomplete) > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("the audit is incomplete: %s", strings.Join(incomplete, "; "))}
	}
	return nil
}

// prefixSink names each call by its path in the tree.
type prefixSink struct {
	prefix string
	next   audit.Sink
}

func (p prefixSink) Begin(r *audit.Report) error { return p.next.Begin(r) }

// Event passes the session's compactions and attachments on.
func (p prefixSink) Event(e *audit.Event) error {
	if es, ok := p.next.(audit.EventSink); ok {
		return es.Event(e)
	}
	return nil
}

func (p prefixSink) End(r *audit.Report) error { return p.next.End(r) }
func (p prefixSink) Call(c *audit.Call) error {
	if p.prefix == "" {
		return p.next.Call(c)
	}
	cp := *c
	cp.CallID = p.prefix + c.CallID
	return p.next.Call(&cp)
}
