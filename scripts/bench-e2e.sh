#!/usr/bin/env bash
# bench-e2e.sh: the end-to-end cost of one trivial tool call (issue 17).
# Each round times, in an order rotated by the round number:
#   - the yardstick: 30 x (a bare `bash -c true` fork/exec + one fsync of a
#     file on $DOCKET_HOME's filesystem), timed inside a small Go program
#     (scripts/bench-e2e-base.go) so its own start-up is not counted;
#   - `docket exec` of a scripted session of 30 sequential `bash -c true`
#     calls, and of a 0-call session (the model answers at once), under
#     danger-full-access and under workspace-write (the real sandbox).
# Per-call cost of a round = (30-call session - 0-call session) / 30, both
# from the same round; the ratio of a round = per-call cost / yardstick per
# item. Rounds are interleaved, so a burst of load hits every candidate
# alike; the report gives medians and p10/p90 over rounds.
#
# Usage: scripts/bench-e2e.sh [-o FILE] [-n ROUNDS] [-b DIR]
#   -o FILE    also write the report to FILE
#   -n ROUNDS  rounds (default 20; $ROUNDS also works)
#   -b DIR     baseline install (DIR/docket, DIR/docket-sandbox-helper),
#              timed alongside as "before"
# Environment: DOCKET=path uses an existing docket binary (with
# docket-sandbox-helper beside it, if any) instead of building;
# DOCKET_HOME=dir puts the scratch home (sessions, the fsync file) in a new
# directory under dir, removed at the end (default: under ${TMPDIR:-/tmp});
# CALLS=n changes the 30.
set -euo pipefail

out=""
rounds="${ROUNDS:-20}"
base=""
while getopts "o:n:b:" opt; do
	case "$opt" in
	o) out="$OPTARG" ;;
	n) rounds="$OPTARG" ;;
	b) base="$OPTARG" ;;
	*) echo "usage: $0 [-o FILE] [-n ROUNDS] [-b DIR]" >&2; exit 2 ;;
	esac
done
calls="${CALLS:-30}"
[[ "$rounds" =~ ^[0-9]+$ && "$rounds" -ge 3 && "$rounds" -le 10000 ]] || { echo "-n: rounds must be 3..10000" >&2; exit 2; }
[[ "$calls" =~ ^[0-9]+$ && "$calls" -ge 1 && "$calls" -le 10000 ]] || { echo "CALLS must be 1..10000" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
home=""
trap 'rm -rf "$work" ${home:+"$home"}' EXIT
# A scratch home of its own, on $DOCKET_HOME's filesystem when that is set:
# the benchmark deletes its sessions between rounds and never touches the
# user's.
if [[ -n "${DOCKET_HOME:-}" ]]; then
	mkdir -p "$DOCKET_HOME"
	home="$(mktemp -d "$DOCKET_HOME/bench-e2e.XXXXXX")"
else
	home="$work/home"
	mkdir -p "$home"
fi

docket="${DOCKET:-}"
if [[ -z "$docket" ]]; then
	echo "building docket and docket-sandbox-helper..." >&2
	mkdir -p "$work/now"
	(cd "$root" && go build -tags grpcnotrace -o "$work/now/docket" ./cmd/docket &&
		CGO_ENABLED=0 go build -o "$work/now/docket-sandbox-helper" ./sandbox/cmd/docket-sandbox-helper)
	docket="$work/now/docket"
fi
(cd "$root" && go build -o "$work/yardstick" scripts/bench-e2e-base.go)
if [[ -n "$base" && ! -x "$base/docket" ]]; then
	echo "-b $base: no executable docket" >&2
	exit 2
fi

# Scripts: $calls sequential calls (one per model response), and none.
ws="$work/workspace"
mkdir -p "$ws"
{
	for ((i = 1; i <= calls; i++)); do
		printf '{"output":[{"type":"function_call","call_id":"c%d","name":"shell","arguments":{"command":["bash","-c","true"]}}]}\n' "$i"
	done
	echo '{"output":[{"type":"message","content":"done"}]}'
} >"$work/calls.jsonl"
echo '{"output":[{"type":"message","content":"done"}]}' >"$work/none.jsonl"

# Candidates: name and docket binary; each is timed with both scripts.
names=()
bins=()
modes=()
for m in danger-full-access workspace-write; do
	if [[ -n "$base" ]]; then
		names+=("before: $m")
		bins+=("$base/docket")
		modes+=("$m")
		names+=("after: $m")
	else
		names+=("$m")
	fi
	bins+=("$docket")
	modes+=("$m")
done
n=${#names[@]}

# session BIN MODE SCRIPT: one docket exec; fails the benchmark if docket
# does (a failed run's time would mean nothing).
session() {
	if ! "$1" exec --skip-git-repo-check --home "$home" -C "$ws" -a never -s "$2" \
		--model-script "$3" go >/dev/null 2>"$work/err"; then
		echo "docket exec failed ($1, -s $2, $3):" >&2
		cat "$work/err" >&2
		exit 1
	fi
}
# timed BIN MODE SCRIPT: prints the wall time of one session in seconds.
timed() {
	local s e
	s=$EPOCHREALTIME
	session "$@"
	e=$EPOCHREALTIME
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }'
}
yard="$home/bench-e2e-fsync.dat"

for ((k = 0; k < n; k++)); do
	session "${bins[$k]}" "${modes[$k]}" "$work/calls.jsonl"
done
"$work/yardstick" "$calls" "$yard" >/dev/null
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "timing $rounds rounds of: yardstick, and $n candidates x (0 and $calls calls), interleaved (load $load_before)..." >&2
# Slots of a round: 0 is the yardstick, 1..n the candidates.
for ((r = 0; r < rounds; r++)); do
	rm -rf "$home/sessions"
	for ((j = 0; j <= n; j++)); do
		slot=$(((j + r) % (n + 1)))
		if ((slot == 0)); then
			"$work/yardstick" "$calls" "$yard" | awk -v c="$calls" '{ printf "%.6f\n", $1 / c * 1000 }' >>"$work/yard"
			continue
		fi
		k=$((slot - 1))
		# Alternate which session of the pair goes first.
		if ((r % 2)); then
			t0=$(timed "${bins[$k]}" "${modes[$k]}" "$work/none.jsonl")
			tn=$(timed "${bins[$k]}" "${modes[$k]}" "$work/calls.jsonl")
		else
			tn=$(timed "${bins[$k]}" "${modes[$k]}" "$work/calls.jsonl")
			t0=$(timed "${bins[$k]}" "${modes[$k]}" "$work/none.jsonl")
		fi
		awk -v a="$tn" -v b="$t0" -v c="$calls" 'BEGIN { printf "%.6f %.6f %.6f\n", (a - b) / c * 1000, a * 1000, b * 1000 }' >>"$work/c.$k"
	done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
# Pair each round's per-call cost with that round's yardstick.
for ((k = 0; k < n; k++)); do
	paste -d' ' "$work/c.$k" "$work/yard" | awk '{ printf "%.6f\n", $1 / $4 }' >"$work/r.$k"
done
# pct FILE COLUMN: median, p10 and p90 of a column.
pct() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ a[NR] = $1 } END {
		m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		lo = int(NR * 0.1 + 0.5); if (lo < 1) lo = 1
		hi = int(NR * 0.9 + 0.5); if (hi < 1) hi = 1
		printf "%.3f %.3f %.3f\n", m, a[lo], a[hi]
	}'
}

report="$work/report.md"
{
	echo "#### End to end: $calls sequential \`bash -c true\` calls through \`docket exec\` ($rounds interleaved rounds)"
	echo
	echo "Machine: $(uname -sr), $(nproc) CPUs, load $load_before at the start and $load_after at the end; $(date -u +%Y-%m-%dT%H:%MZ)."
	echo "\$DOCKET_HOME on $(df -T "$home" | awk 'NR == 2 { print $2 " (" $1 ")" }'). Policy \`-a never\`, scripted model."
	if [[ -n "$base" ]]; then echo "Baseline (before): $base$( [[ -f "$base/COMMIT" ]] && echo ", commit $(cut -c1-12 "$base/COMMIT")")."; fi
	echo
	read -r ym yl yh < <(pct "$work/yard" 1)
	echo "Yardstick, one \`bash -c true\` fork/exec + one fsync: median $ym ms (p10 $yl, p90 $yh)."
	echo
	echo "| candidate | per call (ms), median | p10–p90 | ratio to yardstick, median | p10–p90 | $calls-call session (ms) | 0-call session (ms) |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for ((k = 0; k < n; k++)); do
		read -r cm cl ch < <(pct "$work/c.$k" 1)
		read -r rm rl rh < <(pct "$work/r.$k" 1)
		read -r nm _ _ < <(pct "$work/c.$k" 2)
		read -r zm _ _ < <(pct "$work/c.$k" 3)
		echo "| ${names[$k]} | $cm | $cl–$ch | $rm | $rl–$rh | $nm | $zm |"
	done
	echo
	echo "Per call = (the $calls-call session − the 0-call session of the same round) / $calls; ratio per round against that round's yardstick."
} >"$report"

cat "$report"
if [[ -n "$out" ]]; then
	mkdir -p "$(dirname "$out")"
	cp "$report" "$out"
	echo "wrote $out" >&2
fi
