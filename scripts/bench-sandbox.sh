#!/usr/bin/env bash
# bench-sandbox.sh: time `true` bare, under `docket sandbox` (read-only and
# workspace-write; with docket itself as the helper and with the stand-alone
# docket-sandbox-helper) and under bubblewrap with a comparable read-only
# setup, and print the medians and ratios as a markdown table. With -b, a
# second (baseline) docket install is timed in the same run, so that a
# before/after comparison shares the machine's load. Then run the sandbox
# package's Go benchmarks (the engine's in-process path, without the CLI's
# own start-up), for the baseline revision too with -g.
#
# The runs are interleaved: run i times every command once, in an order
# rotated by i, before run i+1 starts. On a shared machine a burst of load
# then hits every command alike instead of one block of runs, so ratios
# taken within one run stay comparable even when absolute times move.
#
# Usage: scripts/bench-sandbox.sh [-o FILE] [-n RUNS] [-b DIR] [-g REV]
#   -o FILE   also write the report to FILE
#   -n RUNS   runs per command (default 300; $RUNS also works)
#   -b DIR    baseline install: DIR/docket and DIR/docket-sandbox-helper
#             (e.g. binaries built before a change), timed alongside
#   -g REV    baseline git revision for the in-process Go benchmarks: its
#             test binary is built in a temporary worktree and run
#             alternately with the current one
# Environment: DOCKET=path uses an existing docket binary instead of
# building; HELPER=path likewise for docket-sandbox-helper.
set -euo pipefail

out=""
runs="${RUNS:-300}"
base=""
baserev=""
while getopts "o:n:b:g:" opt; do
	case "$opt" in
	o) out="$OPTARG" ;;
	n) runs="$OPTARG" ;;
	b) base="$OPTARG" ;;
	g) baserev="$OPTARG" ;;
	*) echo "usage: $0 [-o FILE] [-n RUNS] [-b DIR] [-g REV]" >&2; exit 2 ;;
	esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
worktree=""
cleanup() {
	if [[ -n "$worktree" ]]; then git -C "$root" worktree remove --force "$worktree" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

# install DIR DOCKET [HELPER]: docket alone in DIR/self (it re-executes
# itself as the helper) and with the stand-alone helper next to it in
# DIR/lean (see sandbox.DefaultHelperPath).
install() {
	mkdir -p "$1/self" "$1/lean"
	cp "$2" "$1/self/docket"
	cp "$2" "$1/lean/docket"
	cp "$3" "$1/lean/docket-sandbox-helper"
}
docket="${DOCKET:-}"
if [[ -z "$docket" ]]; then
	echo "building docket..." >&2
	docket="$work/build/docket"
	(cd "$root" && go build -o "$docket" ./cmd/docket)
fi
helper="${HELPER:-}"
if [[ -z "$helper" ]]; then
	echo "building docket-sandbox-helper (CGO_ENABLED=0)..." >&2
	helper="$work/build/docket-sandbox-helper"
	(cd "$root" && CGO_ENABLED=0 go build -o "$helper" ./sandbox/cmd/docket-sandbox-helper)
fi
install "$work/now" "$docket" "$helper"
if [[ -n "$base" ]]; then
	for f in docket docket-sandbox-helper; do
		[[ -x "$base/$f" ]] || { echo "-b $base: no executable $f" >&2; exit 2; }
	done
	install "$work/base" "$base/docket" "$base/docket-sandbox-helper"
fi
truebin="$(command -v true)"
if [[ "$truebin" != /* ]]; then truebin=/bin/true; fi
ws="$work/workspace"
mkdir -p "$ws"

names=("bare true")
cmds=("$truebin")
if command -v bwrap >/dev/null; then
	names+=("bwrap read-only, no network" "bwrap read-only, no network, pid ns + /proc")
	cmds+=("bwrap --ro-bind / / --dev /dev --unshare-net $truebin"
		"bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net --unshare-pid $truebin")
else
	echo "bwrap not found (apt-get install bubblewrap); skipping its rows" >&2
fi
# docket_rows LABEL DIR: the docket commands of one install.
docket_rows() {
	names+=("$1 docket sandbox -s danger-full-access (CLI start-up only)"
		"$1 docket sandbox -s read-only (docket as helper)"
		"$1 docket sandbox -s workspace-write (docket as helper)"
		"$1 docket sandbox -s read-only (docket-sandbox-helper)"
		"$1 docket sandbox -s workspace-write (docket-sandbox-helper)")
	cmds+=("$2/self/docket sandbox -s danger-full-access -C $ws -- $truebin"
		"$2/self/docket sandbox -s read-only -C $ws -- $truebin"
		"$2/self/docket sandbox -s workspace-write -C $ws -- $truebin"
		"$2/lean/docket sandbox -s read-only -C $ws -- $truebin"
		"$2/lean/docket sandbox -s workspace-write -C $ws -- $truebin")
}
if [[ -n "$base" ]]; then
	docket_rows "before:" "$work/base"
	docket_rows "after:" "$work/now"
else
	docket_rows "" "$work/now"
	for i in "${!names[@]}"; do names[$i]="${names[$i]# }"; done
fi
for c in "${cmds[@]}"; do
	# shellcheck disable=SC2086
	if ! $c >/dev/null 2>&1; then
		echo "command fails, not timing it: $c" >&2
		$c || true
		exit 1
	fi
done

# Interleaved timing with bash's own clock (no extra process per sample):
# samples of command i go to $work/t.i, one per line, in milliseconds.
n=${#cmds[@]}
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "timing ${n} commands x ${runs} runs, interleaved (load $load_before)..." >&2
for ((k = 0; k < n; k++)); do
	# shellcheck disable=SC2086
	for ((w = 0; w < 10; w++)); do ${cmds[$k]} >/dev/null 2>&1; done
done
for ((r = 0; r < runs; r++)); do
	for ((j = 0; j < n; j++)); do
		k=$(((j + r) % n))
		start=$EPOCHREALTIME
		# shellcheck disable=SC2086
		if ! ${cmds[$k]} >/dev/null 2>"$work/err"; then
			echo "run $r: a command failed, so its time would mean nothing: ${cmds[$k]}" >&2
			cat "$work/err" >&2
			exit 1
		fi
		end=$EPOCHREALTIME
		echo "$start $end" >>"$work/t.$k"
	done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
# stats FILE: median, 25th and 75th percentile of the samples, in ms.
stats() {
	awk '{printf "%.6f\n", ($2-$1)*1000}' "$1" | sort -n | awk '{a[NR]=$1} END {
		m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2
		printf "%.3f %.3f %.3f\n", m, a[int(NR*0.25)+1], a[int(NR*0.75)]
	}'
}
medians=()
spreads=()
for ((k = 0; k < n; k++)); do
	read -r m p25 p75 < <(stats "$work/t.$k")
	medians+=("$m")
	spreads+=("$p25–$p75")
done
bare="${medians[0]}"
bwrap_ms=""
if [[ "${names[1]:-}" == bwrap* ]]; then bwrap_ms="${medians[1]}"; fi

report="$work/report.md"
{
	echo "#### Sandbox start-up: \`true\` ($runs interleaved runs each, medians)"
	echo
	echo "Machine: $(uname -sr), $(nproc) CPUs, load $load_before at the start and $load_after at the end; $(date -u +%Y-%m-%dT%H:%MZ)."
	echo "Timer: bash \$EPOCHREALTIME around each command (the fork/exec of bash itself is in every row, see bare true)."
	if [[ -n "$base" ]]; then echo "Baseline (before): $base$( [[ -f "$base/COMMIT" ]] && echo ", commit $(cut -c1-12 "$base/COMMIT")")."; fi
	echo
	echo "| command | median (ms) | p25–p75 (ms) | overhead over bare (ms) | ratio to bare | ratio to bwrap |"
	echo "|---|---:|---:|---:|---:|---:|"
	for ((k = 0; k < n; k++)); do
		awk -v n="${names[$k]}" -v m="${medians[$k]}" -v s="${spreads[$k]}" -v b="$bare" -v w="$bwrap_ms" 'BEGIN {
			r = (w == "") ? "n/a" : sprintf("%.2f", m / w)
			printf "| %s | %.2f | %s | %.2f | %.2f | %s |\n", n, m, s, m - b, m / b, r
		}'
	done
	echo
	echo "Commands:"
	echo
	for ((k = 0; k < n; k++)); do echo "- ${names[$k]}: \`${cmds[$k]//$work/\$TMP}\`"; done
	echo
	echo "#### In-process (engine path): \`go test -bench 'ExecTrueBare|RunTrue' ./sandbox\`"
	echo
	echo '```'
	bench='ExecTrueBare|RunTrue'
	if ! (cd "$root" && go test -c -o "$work/now.test" ./sandbox 2>&1); then
		echo "# the sandbox package's tests do not build; no in-process figures"
	elif [[ -n "$baserev" ]]; then
		worktree="$work/base-tree"
		git -C "$root" worktree add --detach "$worktree" "$baserev" >/dev/null 2>&1
		(cd "$worktree" && go test -c -o "$work/base.test" ./sandbox)
		# Alternate the two binaries, a few rounds each, so that both see the
		# same load; each runs from its own package directory (the lean-helper
		# benchmarks build ./cmd/docket-sandbox-helper from there).
		for round in 1 2 3; do
			echo "# round $round, before ($baserev)"
			(cd "$worktree/sandbox" && "$work/base.test" -test.run '^$' -test.bench "$bench" -test.benchtime "${runs}x" 2>&1 | grep -E '^Benchmark') || true
			echo "# round $round, after"
			(cd "$root/sandbox" && "$work/now.test" -test.run '^$' -test.bench "$bench" -test.benchtime "${runs}x" 2>&1 | grep -E '^Benchmark') || true
		done
	else
		(cd "$root/sandbox" && "$work/now.test" -test.run '^$' -test.bench "$bench" -test.benchtime "${runs}x" 2>&1 | grep -E '^Benchmark') || true
	fi
	echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo '```'
} >"$report"

cat "$report"
if [[ -n "$out" ]]; then
	mkdir -p "$(dirname "$out")"
	cp "$report" "$out"
	echo "wrote $out" >&2
fi
