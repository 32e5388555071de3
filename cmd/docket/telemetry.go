package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/telemetry"
	"github.com/docket-engine/docket/events"
)

// telemetryFlush bounds how long a finishing session waits for its last
// spans to be sent: a collector that is down must not hold docket's exit.
const telemetryFlush = 3 * time.Second

// telemetrySettings turns [otel] into the exporter's settings.
func telemetrySettings(cfg *config.Config) telemetry.Settings {
	o := cfg.OTel
	s := telemetry.Settings{Endpoint: o.Endpoint, Protocol: o.Protocol, Headers: o.Headers, Insecure: o.Insecure,
		Sampling: o.Sampling, QueueSize: int(o.QueueSize), Version: version, Env: os.Getenv, Argv: telemetry.ArgvRedacted,
		Environment: o.Environment}
	switch o.Redaction {
	case "none":
		s.Argv = telemetry.ArgvFull
	case "argv":
		s.Argv = telemetry.ArgvDigest
	}
	return s
}

// startTelemetry wraps the session's journal with the live exporter when
// [otel] (or OTEL_EXPORTER_OTLP_ENDPOINT) turns it on. earlier are the
// records a resumed session's journal already holds: they are read, so
// spans of calls and turns that go on have their parents, but what an
// earlier process finished is not sent again. stop sends what is queued
// (waiting at most telemetryFlush) and says on stderr what could not be
// sent; telemetry trouble never fails the session.
func startTelemetry(ctx context.Context, stderr io.Writer, cfg *config.Config, sessionID string, log engine.Log, earlier []events.Record) (engine.Log, func() error, error) {
	if !cfg.OTelOn(os.Getenv) {
		return log, func() error { return nil }, nil
	}
	s := telemetrySettings(cfg)
	p, err := telemetry.NewProvider(ctx, s, true)
	if err != nil {
		return nil, nil, fmt.Errorf("[otel]: %w", err)
	}
	var quiet uint64
	if n := len(earlier); n > 0 {
		quiet = earlier[n-1].Seq
	}
	b := telemetry.NewBuilder(p.Tracer(), s.Argv, quiet)
	for _, r := range earlier {
		b.Record(r)
	}
	tap := telemetry.NewTap(log, b, 0)
	stop := func() error {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryFlush)
		defer cancel()
		dropped, cerr := tap.Close(fctx)
		serr := p.Shutdown(fctx)
		if dropped > 0 || serr != nil {
			fmt.Fprintf(stderr, "docket: telemetry for session %s is incomplete (%d records dropped; %v); the journal has everything: docket export %s sends it again\n",
				sessionID, dropped, serr, sessionID)
		}
		return cerr
	}
	return tap, stop, nil
}
