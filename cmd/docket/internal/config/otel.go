package config

import (
	"math"
	"slices"
)

// OTel is the [otel] table: where and how sessions are exported to
// OpenTelemetry (engine/telemetry). Unset keys are left to the
// standard OTEL_* variables.
type OTel struct {
	// Enabled, when false, turns export off even where an endpoint is set.
	Enabled *bool `toml:"enabled"`
	// Endpoint is the collector: a URL, or host:port.
	Endpoint string `toml:"endpoint"`
	// Protocol is "grpc" or "http/protobuf".
	Protocol string `toml:"protocol"`
	// Headers are sent with every export (often a credential: redacted in
	// the journal's settings).
	Headers map[string]string `toml:"headers"`
	// Insecure sends without TLS to a host:port endpoint.
	Insecure bool `toml:"insecure"`
	// Redaction is how much of a command leaves the machine: "secrets"
	// (the default: what looks like a secret is replaced), "none", or
	// "argv" (no argv at all, its digest only).
	Redaction string `toml:"redaction"`
	// Sampling is the fraction of sessions exported, 0 to 1.
	Sampling *float64 `toml:"sampling"`
	// QueueSize bounds the spans waiting to be sent.
	QueueSize int64 `toml:"queue_size"`
	// CodexOTel is Codex's shape of the table (otel_codex.go).
	CodexOTel
}

func otelProtocols() []string  { return []string{"grpc", "http/protobuf"} }
func otelRedactions() []string { return []string{"secrets", "none", "argv"} }

// checkOTel validates the [otel] table.
func checkOTel(c *Config) error {
	at := func(key ...string) Source {
		s, _ := c.Sources.Of(joinKey(key))
		return s
	}
	if err := c.OTel.applyCodex(at); err != nil {
		return err
	}
	o := c.OTel
	k := func(s string) []string { return []string{"otel", s} }
	switch {
	case o.Protocol != "" && !slices.Contains(otelProtocols(), o.Protocol):
		return at(k("protocol")...).errorf(k("protocol"), "", "%s", notOneOf(o.Protocol, "OTLP protocol", otelProtocols()))
	case o.Redaction != "" && !slices.Contains(otelRedactions(), o.Redaction):
		return at(k("redaction")...).errorf(k("redaction"), "", "%s", notOneOf(o.Redaction, "redaction", otelRedactions()))
	case o.Sampling != nil && (!(*o.Sampling >= 0 && *o.Sampling <= 1) || math.IsNaN(*o.Sampling)):
		return at(k("sampling")...).errorf(k("sampling"), "", "%v is not a fraction between 0 and 1", *o.Sampling)
	case o.QueueSize < 0 || o.QueueSize > 1<<20:
		return at(k("queue_size")...).errorf(k("queue_size"), "", "%d is not between 0 and %d", o.QueueSize, 1<<20)
	}
	return nil
}

// OTelOn reports whether export is on: an endpoint in [otel] or in the
// standard variables, not turned off by otel.enabled = false or
// OTEL_SDK_DISABLED=true.
func (c *Config) OTelOn(env func(string) string) bool {
	if c.OTel.Enabled != nil && !*c.OTel.Enabled {
		return false
	}
	if env("OTEL_SDK_DISABLED") == "true" {
		return false
	}
	return c.OTel.Endpoint != "" || env("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}
