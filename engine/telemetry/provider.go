package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Protocols an exporter speaks.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Settings configure the export: the [otel] table, with the standard
// OTEL_* variables filling what it leaves unset (the OTLP exporters read
// OTEL_EXPORTER_OTLP_* themselves; the SDK reads OTEL_TRACES_SAMPLER*,
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES).
type Settings struct {
	// Endpoint is a URL (http://host:4318, https://host:4317) or host:port;
	// "" leaves it to OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT. Over HTTP a URL
	// without a path is a base, as that variable's: traces go to
	// /v1/traces.
	Endpoint string
	// Protocol is ProtocolGRPC or ProtocolHTTP; "" reads
	// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL, else gRPC.
	Protocol string
	Headers  map[string]string
	// Insecure sends without TLS to a host:port endpoint (a URL says so by
	// its scheme).
	Insecure bool
	// Argv is how much of each command is sent.
	Argv ArgvMode
	// Sampling, when set, is the fraction of sessions sent (by trace id,
	// so a session is sent whole or not at all).
	Sampling *float64
	// QueueSize bounds the spans waiting to be sent; past it, telemetry is
	// dropped (live) or the sender waits (docket export). 0 means 2048.
	QueueSize int
	// ExportTimeout bounds one batch's send; 0 means 5 s.
	ExportTimeout time.Duration
	// Version is docket's, for the resource.
	Version string
	// Environment, when set, is the resource's deployment.environment
	// (Codex's otel.environment).
	Environment string
	// Env looks up the environment (for the protocol variable).
	Env func(string) string
}

// Provider is a tracer provider wired to an OTLP exporter.
type Provider struct {
	tp  *sdktrace.TracerProvider
	exp *countingExporter
}

// NewProvider builds the exporter and the provider. blocking makes a full
// span queue wait for room instead of dropping spans uncounted: right for
// docket export, and for a live session too, where the one waiting is
// Tap's goroutine (Tap's own queue then drops, and counts).
func NewProvider(ctx context.Context, s Settings, blocking bool) (*Provider, error) {
	inner, err := newExporter(ctx, s)
	if err != nil {
		return nil, err
	}
	exp := &countingExporter{inner: inner}
	q := s.QueueSize
	if q <= 0 {
		q = 2048
	}
	et := s.ExportTimeout
	if et <= 0 {
		et = 5 * time.Second
	}
	bopts := []sdktrace.BatchSpanProcessorOption{sdktrace.WithMaxQueueSize(q), sdktrace.WithExportTimeout(et),
		sdktrace.WithBatchTimeout(time.Second), sdktrace.WithMaxExportBatchSize(min(512, q))}
	if blocking {
		bopts = append(bopts, sdktrace.WithBlocking())
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", "docket"), attribute.String("service.version", s.Version)}
	if s.Environment != "" {
		attrs = append(attrs, attribute.String("deployment.environment", s.Environment))
	}
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithFromEnv(), resource.WithHost())
	if err != nil {
		// A resource detector's trouble (an unreadable host name) is no
		// reason to send nothing: keep what was detected.
		res = resource.NewSchemaless(attribute.String("service.name", "docket"))
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithSpanProcessor(sdktrace.NewBatchSpanProcessor(exp, bopts...)),
		sdktrace.WithIDGenerator(idGenerator{}), sdktrace.WithResource(res)}
	if s.Sampling != nil {
		opts = append(opts, sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(*s.Sampling))))
	}
	return &Provider{tp: sdktrace.NewTracerProvider(opts...), exp: exp}, nil
}

// Tracer is Docket's tracer.
func (p *Provider) Tracer() trace.Tracer {
	return p.tp.Tracer("github.com/docket-engine/docket", trace.WithInstrumentationVersion("1"))
}

// Shutdown sends what is queued, waiting at most until ctx is done, and
// reports the batches that could not be sent.
func (p *Provider) Shutdown(ctx context.Context) error {
	err := p.tp.Shutdown(ctx)
	if n := p.exp.failed.Load(); n > 0 {
		err = errors.Join(err, fmt.Errorf("%d span batch(es) could not be sent (last error: %v)", n, p.exp.lastErr.Load()))
	}
	return err
}

// Sent is the number of spans the collector accepted.
func (p *Provider) Sent() int64 { return p.exp.sent.Load() }

// Failed is the number of batches the collector did not accept.
func (p *Provider) Failed() int64 { return p.exp.failed.Load() }

func protocolOf(s Settings) string {
	if s.Protocol != "" {
		return s.Protocol
	}
	env := s.Env
	if env == nil {
		env = func(string) string { return "" }
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := env(k); v != "" {
			return v
		}
	}
	return ProtocolGRPC
}

func newExporter(ctx context.Context, s Settings) (sdktrace.SpanExporter, error) {
	isURL := strings.Contains(s.Endpoint, "://")
	if isURL {
		if _, err := url.Parse(s.Endpoint); err != nil {
			return nil, fmt.Errorf("otel.endpoint %q: %w", s.Endpoint, err)
		}
	}
	switch p := protocolOf(s); p {
	case ProtocolGRPC:
		var o []otlptracegrpc.Option
		switch {
		case isURL:
			o = append(o, otlptracegrpc.WithEndpointURL(s.Endpoint))
		case s.Endpoint != "":
			o = append(o, otlptracegrpc.WithEndpoint(s.Endpoint))
		}
		if s.Insecure {
			o = append(o, otlptracegrpc.WithInsecure())
		}
		if len(s.Headers) > 0 {
			o = append(o, otlptracegrpc.WithHeaders(s.Headers))
		}
		// One attempt per batch: a retry loop would only hold the queue
		// longer; the journal keeps everything for docket export.
		o = append(o, otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
		return otlptracegrpc.New(ctx, o...)
	case ProtocolHTTP, "http":
		var o []otlptracehttp.Option
		switch {
		case isURL:
			// As OTEL_EXPORTER_OTLP_ENDPOINT: a base URL, traces under
			// /v1/traces unless the URL names a path of its own.
			u, _ := url.Parse(s.Endpoint)
			if u.Path == "" || u.Path == "/" {
				u.Path = "/v1/traces"
			}
			o = append(o, otlptracehttp.WithEndpointURL(u.String()))
		case s.Endpoint != "":
			o = append(o, otlptracehttp.WithEndpoint(s.Endpoint))
		}
		if s.Insecure {
			o = append(o, otlptracehttp.WithInsecure())
		}
		if len(s.Headers) > 0 {
			o = append(o, otlptracehttp.WithHeaders(s.Headers))
		}
		o = append(o, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
		return otlptracehttp.New(ctx, o...)
	default:
		return nil, fmt.Errorf("otel protocol %q: use %q or %q", p, ProtocolGRPC, ProtocolHTTP)
	}
}

// countingExporter counts what was sent and what failed, and keeps export
// errors from the SDK's global error handler (which would print each one
// on docket's stderr while the collector is down).
type countingExporter struct {
	inner   sdktrace.SpanExporter
	sent    atomic.Int64
	failed  atomic.Int64
	lastErr atomic.Value
}

func (c *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := c.inner.ExportSpans(ctx, spans); err != nil {
		c.failed.Add(1)
		c.lastErr.Store(err.Error())
		return nil
	}
	c.sent.Add(int64(len(spans)))
	return nil
}

func (c *countingExporter) Shutdown(ctx context.Context) error { return c.inner.Shutdown(ctx) }
