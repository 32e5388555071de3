# unsandboxed-runs.jq: list the tool calls that ran without a sandbox, from
# an OpenTelemetry Collector file exporter's output (OTLP JSON, one export
# request per line), one JSON object per call:
#   jq -c -f scripts/unsandboxed-runs.jq traces.jsonl
# The same spans re-sent by `docket export` appear once per copy; pipe
# through `jq -s 'unique_by(.span)[]'` to count each call once.
def attr($k): (.attributes // [])[] | select(.key == $k) | .value | (.stringValue // .boolValue // .intValue);
.resourceSpans[]
| (.resource.attributes // []) as $res
| .scopeSpans[].spans[]
| select(attr("docket.ran_unsandboxed") == true)
| {
    host: ([$res[] | select(.key == "host.name") | .value.stringValue][0]),
    time: ((.startTimeUnixNano | tonumber) / 1e9 | todate),
    session: attr("docket.session.id"),
    call: attr("docket.call.id"),
    tool: attr("docket.tool"),
    command: attr("docket.command"),
    cwd: attr("docket.cwd"),
    outcome: attr("docket.outcome"),
    why: attr("docket.why"),
    trace: .traceId,
    span: .spanId
  }
