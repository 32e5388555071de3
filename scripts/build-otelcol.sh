#!/usr/bin/env bash
# build-otelcol.sh: build the test OpenTelemetry Collector (OTLP receiver,
# file exporter; tools/otelcol, its own Go module) once and print the path
# of the binary. The binary is cached outside the checkout, keyed by the
# hash of tools/otelcol's go.sum, go.mod and main.go, so it is rebuilt only
# when they change:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/docket/otelcol-<hash>
# The first build downloads the collector modules from the Go module proxy
# and compiles them (minutes on a busy machine); later runs print the path
# at once. Concurrent callers are safe: the binary is built under a
# temporary name and renamed into place.
#
# Usage: scripts/build-otelcol.sh   (prints the binary's path on stdout)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$here/tools/otelcol"
hash="$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum | cut -c1-16)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/docket"
bin="$cache/otelcol-$hash"
if [[ -x "$bin" ]]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$cache"
tmp="$(mktemp "$cache/.otelcol-build.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
start=$(date +%s)
(cd "$src" && GOWORK=off go build -o "$tmp" .) >&2
chmod 0755 "$tmp"
mv -f "$tmp" "$bin"
trap - EXIT
echo "build-otelcol.sh: built $bin in $(( $(date +%s) - start ))s" >&2
echo "$bin"
