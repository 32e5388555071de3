package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine/telemetry"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/spf13/cobra"
)

// exportFlush bounds how long docket export waits for the collector to
// take the last spans.
const exportFlush = 60 * time.Second

func newExportCmd(a *app) *cobra.Command {
	var (
		home, since string
		all         bool
		overrides   []string
	)
	c := &cobra.Command{
		Use:   "export [SESSION] [--all [--since T]]",
		Short: "Send finished sessions to OpenTelemetry again, from their journals",
		Long: "export reads sessions' journals and sends their turns and tool calls to the [otel] collector as a live\n" +
			"session would have (docs/cli.md). Trace and span ids are derived from the session id and the turn's seq or\n" +
			"the call's id, so sending a session twice produces the same spans: after a collector outage, export\n" +
			"what it missed. A session still running is skipped. --since takes a time (RFC 3339, or a date) or a\n" +
			"duration back from now (24h). Exit 1 when the collector did not take everything.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return usageErrorf("give one SESSION or --all")
			}
			if since != "" && !all {
				return usageErrorf("--since goes with --all")
			}
			var from time.Time
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return usageErrorf("--since: %v", err)
				}
				from = t
			}
			return runExport(c.Context(), a, home, overrides, args, from)
		},
	}
	f := c.Flags()
	f.BoolVar(&all, "all", false, "export every session under the home")
	f.StringVar(&since, "since", "", "with --all: only sessions started at or after `T` (RFC 3339, 2006-01-02, or a duration such as 24h)")
	f.StringVar(&home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	f.StringArrayVarP(&overrides, "config", "c", nil, "override one config key: KEY=VALUE (e.g. -c otel.endpoint='\"http://localhost:4318\"')")
	return c
}

// parseSince reads --since: a duration back from now, an RFC 3339 time, or
// a date (midnight UTC).
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q is a negative duration", s)
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (24h), an RFC 3339 time nor a date (2006-01-02)", s)
}

func runExport(ctx context.Context, a *app, home string, overrides, args []string, since time.Time) error {
	cfg, err := config.Load(config.LoadOptions{Home: home, Env: os.Getenv, Overrides: overrides})
	if err != nil {
		return err
	}
	if !cfg.OTelOn(os.Getenv) {
		return usageErrorf("no collector: set otel.endpoint in %s, OTEL_EXPORTER_OTLP_ENDPOINT, or -c otel.endpoint=...", cfg.File)
	}
	var files []journal.SessionFile
	if len(args) == 1 {
		sf, err := journal.Find(cfg.Home, args[0])
		if err != nil {
			var nf *journal.NotFoundError
			var amb *journal.AmbiguousError
			if errors.As(err, &nf) || errors.As(err, &amb) {
				return usageErrorf("%v", err)
			}
			return err
		}
		files = []journal.SessionFile{sf}
	} else {
		list, unreadable, err := journal.List(cfg.Home)
		if err != nil {
			return err
		}
		warnUnreadable(a.stderr, unreadable)
		for _, sf := range list {
			if since.IsZero() || !startedFromID(sf.ID, sf.ModTime).Before(since) {
				files = append(files, sf)
			}
		}
	}
	s := telemetrySettings(cfg)
	p, err := telemetry.NewProvider(ctx, s, true)
	if err != nil {
		return fmt.Errorf("[otel]: %w", err)
	}
	sent, skipped := 0, 0
	for _, sf := range files {
		if err := ctx.Err(); err != nil {
			break
		}
		ok, err := exportSession(p, s.Argv, sf)
		switch {
		case err != nil:
			fmt.Fprintf(a.stderr, "docket: export %s: %v\n", sf.ID, err)
		case !ok:
			skipped++
			fmt.Fprintf(a.stderr, "docket: export %s: skipped: another process holds it (still running)\n", sf.ID)
			continue
		}
		if ok {
			sent++
		}
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), exportFlush)
	defer cancel()
	serr := p.Shutdown(fctx)
	fmt.Fprintf(a.stdout, "exported %d session(s), %d span(s) taken by the collector, %d skipped\n", sent, p.Sent(), skipped)
	if serr != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("the collector did not take everything: %w", serr)}
	}
	return nil
}

// exportSession turns one journal into spans. It reports false for a
// session another process holds; a damaged journal is exported up to the
// damage, with the damage as its error.
func exportSession(p *telemetry.Provider, argv telemetry.ArgvMode, sf journal.SessionFile) (bool, error) {
	b := telemetry.NewBuilder(p.Tracer(), argv, 0)
	err := journal.Scan(sf.Path, 1, func(r events.Record) error {
		b.Record(r)
		return nil
	})
	var inUse *journal.InUseError
	if errors.As(err, &inUse) {
		return false, nil
	}
	b.End(true)
	return true, err
}
