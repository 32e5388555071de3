package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay/audit"
	"github.com/spf13/cobra"
)

func newAuditCmd(a *app) *cobra.Command {
	var (
		home, callID, htmlFile              string
		unsandboxed, jsonOut, tree, network bool
	)
	c := &cobra.Command{
		Use:   "audit SESSION|FILE",
		Short: "Explain a session's tool calls: transitions and causes, decisions, sandbox layers, and why any call ran unsandboxed",
		Long: "audit reads a session's journal and prints, for each tool call, the chain of state-machine transitions with\n" +
			"their causes, the approval decisions (who, when), the sandbox layers enforced, the denial evidence and any\n" +
			"run without a sandbox. --unsandboxed lists only the calls that ran without a sandbox, each with one line\n" +
			"saying why. A damaged journal is audited past the damage: every record that can be read is, the report\n" +
			"says which records could not be read and why, and the audit exits 1 because it is incomplete.\n" +
			"--network lists every network decision and connection of the session's egress proxy: host, port, allowed or\n" +
			"refused, the rule or answer and who decided (profile rule, user once/session/always, policy never, proxy),\n" +
			"and the call and command it came from.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts := audit.Options{CallID: callID, UnsandboxedOnly: unsandboxed, NetworkOnly: network}
			if network && (tree || unsandboxed || htmlFile != "") {
				return usageErrorf("--network prints text or --json; it does not combine with --tree, --unsandboxed or --html (the HTML page has a network section)")
			}
			if tree {
				if htmlFile != "" || callID != "" {
					return usageErrorf("--tree prints text or --json; it does not combine with --html or --call")
				}
				return runAuditTree(c.Context(), a, home, args[0], jsonOut, opts)
			}
			return runAudit(c.Context(), a, home, args[0], htmlFile, jsonOut, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&callID, "call", "", "audit only this call, read through the journal's call index")
	f.BoolVar(&unsandboxed, "unsandboxed", false, "list only calls that ran without a sandbox, each with why")
	f.BoolVar(&jsonOut, "json", false, "print the audit as JSON (docs/cli.md)")
	f.StringVar(&htmlFile, "html", "", "write a self-contained HTML page (timeline and state diagram per call) to `FILE`")
	f.BoolVar(&network, "network", false, "list the session's network decisions and connections, each with its call, command and who decided")
	f.BoolVar(&tree, "tree", false, "audit the session and every subagent it started, each call named by its path (NAME/CALL_ID)")
	f.StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	return c
}

func runAudit(ctx context.Context, a *app, homeFlag, ref, htmlFile string, jsonOut bool, opts audit.Options) error {
	_, sf, err := auditedSession(homeFlag, ref)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(a.stdout)
	var tail tailSink
	sinks := []audit.Sink{&tail}
	switch {
	case jsonOut && opts.NetworkOnly:
		sinks = append(sinks, audit.NewNetworkJSONWriter(out))
	case jsonOut:
		sinks = append(sinks, audit.NewJSONWriter(out))
	case htmlFile == "":
		sinks = append(sinks, audit.NewTextWriter(out, opts))
	}
	var page *os.File
	var pageBuf *bufio.Writer
	if htmlFile != "" {
		page, err = os.Create(htmlFile)
		if err != nil {
			return &exitError{code: exitFailed, err: fmt.Errorf("html page: %w", err)}
		}
		pageBuf = bufio.NewWriter(page)
		sinks = append(sinks, audit.NewHTMLWriter(pageBuf))
	}
	err = audit.Stream(ctx, sf.Path, opts, audit.Tee(sinks...))
	err = errors.Join(err, out.Flush())
	if page != nil {
		if err == nil {
			err = pageBuf.Flush()
		}
		err = errors.Join(err, page.Close())
		if err != nil {
			_ = os.Remove(htmlFile) // best effort: the audit's own error is what the user needs
		} else {
			fmt.Fprintf(a.stderr, "docket: audit of %s written to %s\n", sf.ID, htmlFile)
		}
	}
	if err != nil {
		var nf *audit.CallNotFoundError
		if errors.As(err, &nf) {
			return usageErrorf("%v", err)
		}
		return &exitError{code: exitFailed, err: fmt.Errorf("audit %s: %w", sf.Path, err)}
	}
	if d := tail.damage(); d.Incomplete() {
		// An audit that could not read everything must not pass for a
		// clean one in a script: it exits 1 after printing what it read.
		return &exitError{code: exitFailed, err: fmt.Errorf("journal %s is damaged after seq %d (%s): read %d of %d records, every readable one audited; the audit is incomplete",
			sf.Path, d.LastGoodSeq, d.Error, d.Read, d.Last)}
	} else if d != nil {
		fmt.Fprintf(a.stderr, "docket: journal %s is damaged (%s), but every one of its %d records was read\n", sf.Path, d.Error, d.Last)
	}
	return nil
}

// tailSink keeps the audit's trailer, to warn about damage on stderr.
type tailSink struct{ tail *audit.Report }

func (t *tailSink) Begin(*audit.Report) error { return nil }
func (t *tailSink) Call(*audit.Call) error    { return nil }
func (t *tailSink) End(r *audit.Report) error {
	t.tail = r
	return nil
}

func (t *tailSink) damage() *audit.Damage {
	if t.tail == nil {
		return nil
	}
	return t.tail.Damaged
}

// auditedSession finds the session an audit names, and the home it is in:
// a bad home, an unknown or ambiguous reference is a usage error (exit 2),
// anything else exit 1.
func auditedSession(homeFlag, ref string) (string, journal.SessionFile, error) {
	home, err := resolveHome(homeFlag)
	if err != nil {
		return "", journal.SessionFile{}, usageErrorf("%v", err)
	}
	sf, err := findSession(home, ref)
	if err != nil {
		var nf *journal.NotFoundError
		var amb *journal.AmbiguousError
		if errors.As(err, &nf) || errors.As(err, &amb) {
			return home, sf, usageErrorf("%v", err)
		}
		return home, sf, &exitError{code: exitFailed, err: err}
	}
	return home, sf, nil
}
