package telemetry

import (
	"github.com/docket-engine/docket/replay/audit"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Span event names of the egress proxy's records.
const (
	EventNetworkDecision   = "docket.network.decision"
	EventNetworkConnection = "docket.network.connection"
)

// networkEvents adds the call's network decisions and connections as span
// events, each at its journal time: where the command went, whether it
// got there, and who decided (the audit's words).
func (b *Builder) networkEvents(span trace.Span, c *audit.Call) {
	for _, e := range c.Network {
		attrs := []attribute.KeyValue{
			attribute.Int64("docket.seq", int64(e.Seq)),
			attribute.Int64("docket.network.conn", int64(e.Conn)),
			attribute.String("docket.network.host", e.Host),
			attribute.Int("docket.network.port", e.Port),
			attribute.String("docket.network.protocol", e.Protocol),
			attribute.Bool("docket.network.allowed", e.Allowed),
			attribute.String("docket.network.decided_by", e.DecidedBy),
		}
		if e.Method != "" {
			attrs = append(attrs, attribute.String("docket.network.method", e.Method))
		}
		name := EventNetworkConnection
		if e.Kind == audit.NetworkKindDecision {
			name = EventNetworkDecision
			attrs = append(attrs, attribute.String("docket.network.answer", e.Answer), attribute.String("docket.network.source", e.Source),
				attribute.String("docket.network.profile", e.Profile))
			if e.RuleWritten != "" {
				attrs = append(attrs, attribute.String("docket.network.rule_written", e.RuleWritten))
			}
		} else {
			// The rule may carry an upstream's error text: redacted
			// like every other free text.
			attrs = append(attrs, attribute.String("docket.network.rule", b.red.text(e.Rule)))
			if e.Addr != "" {
				attrs = append(attrs, attribute.String("docket.network.addr", e.Addr))
			}
			if e.SNI != "" {
				attrs = append(attrs, attribute.String("docket.network.sni", e.SNI))
			}
			if e.Refusals > 0 {
				attrs = append(attrs, attribute.Int("docket.network.refusals", e.Refusals))
			}
		}
		span.AddEvent(name, trace.WithTimestamp(parseAt(e.At)), trace.WithAttributes(attrs...))
	}
}

// networkCounts are the call span's totals of connections allowed and
// refused, for queries that look at spans without their events.
func networkCounts(c *audit.Call) []attribute.KeyValue {
	allowed, refused := audit.ConnectionCounts(c.Network)
	if allowed+refused == 0 {
		return nil
	}
	return []attribute.KeyValue{attribute.Int("docket.network.allowed_count", allowed), attribute.Int("docket.network.refused_count", refused)}
}
