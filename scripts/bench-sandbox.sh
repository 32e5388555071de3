#!/usr/bin/env bash
# bench-sandbox.sh: time `true` bare, under `docket sandbox` (read-only and
# workspace-write; with docket itself as the helper and with the stand-alone
# docket-sandbox-helper) and under bubblewrap with a comparable read-only
# setup, many runs each, and print the medians and ratios as a markdown table.
# Then run the sandbox package's Go benchmarks (the engine's in-process
# path, without the CLI's own start-up).
#
# Usage: scripts/bench-sandbox.sh [-o FILE] [-n RUNS]
#   -o FILE   also write the report to FILE (e.g. docs/benchmarks.md)
#   -n RUNS   runs per command (default 300; $RUNS also works)
# Environment: DOCKET=path uses an existing docket binary instead of building.
# Needs go; uses hyperfine and python3 when installed, else a bash loop.
set -euo pipefail

out=""
runs="${RUNS:-300}"
while getopts "o:n:" opt; do
	case "$opt" in
	o) out="$OPTARG" ;;
	n) runs="$OPTARG" ;;
	*) echo "usage: $0 [-o FILE] [-n RUNS]" >&2; exit 2 ;;
	esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Two installs: docket alone (it re-executes itself as the helper) and
# docket with the stand-alone helper next to it (see sandbox.DefaultHelperPath).
mkdir -p "$work/self" "$work/lean"
docket="$work/self/docket"
if [[ -n "${DOCKET:-}" ]]; then
	cp "$DOCKET" "$docket"
else
	echo "building docket..." >&2
	(cd "$root" && go build -o "$docket" ./cmd/docket)
fi
lean="$work/lean/docket"
cp "$docket" "$lean"
echo "building docket-sandbox-helper (CGO_ENABLED=0)..." >&2
(cd "$root" && CGO_ENABLED=0 go build -o "$work/lean/docket-sandbox-helper" ./sandbox/cmd/docket-sandbox-helper)
truebin="$(command -v true)"
if [[ "$truebin" != /* ]]; then truebin=/bin/true; fi
ws="$work/workspace"
mkdir -p "$ws"

names=(
	"bare true"
	"bwrap read-only, no network"
	"bwrap read-only, no network, pid ns + /proc"
	"docket sandbox -s danger-full-access (CLI start-up only)"
	"docket sandbox -s read-only (docket as helper)"
	"docket sandbox -s workspace-write (docket as helper)"
	"docket sandbox -s read-only (docket-sandbox-helper)"
	"docket sandbox -s workspace-write (docket-sandbox-helper)"
)
cmds=(
	"$truebin"
	"bwrap --ro-bind / / --dev /dev --unshare-net $truebin"
	"bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net --unshare-pid $truebin"
	"$docket sandbox -s danger-full-access -C $ws -- $truebin"
	"$docket sandbox -s read-only -C $ws -- $truebin"
	"$docket sandbox -s workspace-write -C $ws -- $truebin"
	"$lean sandbox -s read-only -C $ws -- $truebin"
	"$lean sandbox -s workspace-write -C $ws -- $truebin"
)
if ! command -v bwrap >/dev/null; then
	echo "bwrap not found (apt-get install bubblewrap); skipping its rows" >&2
	names=("${names[0]}" "${names[@]:3}")
	cmds=("${cmds[0]}" "${cmds[@]:3}")
fi
for c in "${cmds[@]}"; do
	if ! $c >/dev/null 2>&1; then
		echo "command fails, not timing it: $c" >&2
		$c || true
		exit 1
	fi
done

# median_ms CMD...: the median wall time of $runs runs, in milliseconds.
median_ms() {
	if command -v hyperfine >/dev/null && command -v python3 >/dev/null; then
		hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/h.json" "$*" >/dev/null 2>&1
		python3 -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$work/h.json"
		return
	fi
	# Fallback: bash's own clock, no extra process per sample.
	local i start end
	for ((i = 0; i < 20; i++)); do "$@" >/dev/null 2>&1; done
	for ((i = 0; i < runs; i++)); do
		start=$EPOCHREALTIME
		"$@" >/dev/null 2>&1
		end=$EPOCHREALTIME
		echo "$start $end"
	done | awk '{printf "%.6f\n", ($2-$1)*1000}' | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f\n", m}'
}

medians=()
for i in "${!cmds[@]}"; do
	echo "timing: ${names[$i]}" >&2
	# shellcheck disable=SC2086
	medians+=("$(median_ms ${cmds[$i]})")
done
bare="${medians[0]}"
bwrap_ms=""
if [[ "${names[1]}" == bwrap* ]]; then bwrap_ms="${medians[1]}"; fi

report="$work/report.md"
{
	echo "## Sandbox start-up: \`true\` ($runs runs each, medians)"
	echo
	echo "Machine: $(uname -sr), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)."
	echo "Timer: $(command -v hyperfine >/dev/null && command -v python3 >/dev/null && echo "hyperfine -N" || echo "bash EPOCHREALTIME loop")."
	echo
	echo "| command | median (ms) | overhead over bare (ms) | ratio to bare | ratio to bwrap |"
	echo "|---|---:|---:|---:|---:|"
	for i in "${!cmds[@]}"; do
		m="${medians[$i]}"
		awk -v n="${names[$i]}" -v m="$m" -v b="$bare" -v w="$bwrap_ms" 'BEGIN {
			r = (w == "") ? "n/a" : sprintf("%.2f", m / w)
			printf "| %s | %.2f | %.2f | %.2f | %s |\n", n, m, m - b, m / b, r
		}'
	done
	echo
	echo "Commands:"
	echo
	for i in "${!cmds[@]}"; do echo "- ${names[$i]}: \`${cmds[$i]//$work/\$TMP}\`"; done
	echo
	echo "## In-process (engine path): \`go test -bench RunTrue ./sandbox\`"
	echo
	echo '```'
	(cd "$root" && go test -run '^$' -bench 'ExecTrueBare|RunTrue' -benchtime "${runs}x" ./sandbox 2>&1 | grep -E '^(Benchmark|ok|FAIL)') || true
	echo '```'
} >"$report"

cat "$report"
if [[ -n "$out" ]]; then
	mkdir -p "$(dirname "$out")"
	cp "$report" "$out"
	echo "wrote $out" >&2
fi
