#!/usr/bin/env bash
# bench-sandbox.sh: time the start of a sandboxed `true` in ONE interleaved
# run (scripts/benchsandbox): bare /bin/true, bubblewrap (`bwrap --ro-bind /
# / --dev /dev --unshare-net /bin/true`), `docket --version` (the full
# binary's start alone), `docket sandbox` read-only and -s workspace-write
# (one process per call, the lean helper beside it, as `make build`
# installs them), the
# engine's in-process sandbox.Run (workspace-write, every layer and the
# default limits on; with a fresh git-directory walk per call, with the
# session's kept walk, and with the kept walk and the session's sandbox
# server, which is what a session does), and Codex's `codex sandbox` when it is installed
# (npm install --prefix .cache/codex @openai/codex; skipped with a message
# otherwise). Run r times every candidate once, in an order rotated by r,
# so that a burst of load on the shared machine hits every candidate alike;
# the report gives medians, p10/p90 and ratios to bubblewrap, then a
# per-phase breakdown of traced sandboxed starts (sandbox.TraceEnv). With
# -b, a second (baseline) docket install is timed in the same run. Then the
# sandbox package's Go benchmarks run (for the baseline revision too with
# -g, alternating).
#
# Usage: scripts/bench-sandbox.sh [-o FILE] [-n RUNS] [-b DIR] [-g REV]
#   -o FILE   also write the report to FILE
#   -n RUNS   interleaved runs per candidate (default 200; $RUNS also works)
#   -b DIR    baseline install: DIR/docket and DIR/docket-sandbox-helper
#             (e.g. binaries built before a change), timed alongside
#   -g REV    baseline git revision for the in-process Go benchmarks: its
#             test binary is built in a temporary worktree and run
#             alternately with the current one
# Environment: DOCKET=path uses an existing docket binary instead of
# building; HELPER=path likewise for docket-sandbox-helper; TRACE=N traced
# starts per candidate for the phase breakdown (default 50, 0 for none);
# GOBENCH=0 skips the Go benchmarks; FILL=N first adds about N entries to
# /tmp (a scratch tree, removed at the end), so that /tmp is past the git
# walk's 10,000-entry bound as on a busy machine.
set -euo pipefail

out=""
runs="${RUNS:-200}"
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
# Empty directories already at /tmp's protected names (a killed run's stubs
# that no record names) are bound as they are instead of made and removed
# per call: every workspace-write row then skips that work and reads
# cheaper than on a clean machine (found 2026-11-28: four such stubs had
# flattered the session row by about 0.2x bubblewrap for hours).
for name in .git .docket .agents .codex; do
	if [[ -d "/tmp/$name" ]] && [[ -z "$(ls -A "/tmp/$name" 2>/dev/null)" ]]; then
		echo "bench-sandbox: warning: /tmp/$name already exists (empty): the workspace-write rows will not make or remove that stub and read cheaper than on a clean /tmp" >&2
	fi
done
work="$(mktemp -d)"
# The installs live outside /tmp: /tmp is a writable root of workspace-write,
# and docket binaries under a writable root cost extra binds (and are not
# how docket is installed).
mkdir -p "$root/bin"
inst="$(mktemp -d "$root/bin/.bench-sandbox-XXXXXX")"
worktree=""
cleanup() {
	if [[ -n "$worktree" ]]; then git -C "$root" worktree remove --force "$worktree" >/dev/null 2>&1 || true; fi
	rm -rf "$work" "$inst"
}
trap cleanup EXIT

docket="${DOCKET:-}"
if [[ -z "$docket" ]]; then
	echo "building docket..." >&2
	docket="$work/docket"
	(cd "$root" && go build -tags grpcnotrace -o "$docket" ./cmd/docket)
fi
helper="${HELPER:-}"
if [[ -z "$helper" ]]; then
	echo "building docket-sandbox-helper (CGO_ENABLED=0)..." >&2
	helper="$work/docket-sandbox-helper"
	(cd "$root" && CGO_ENABLED=0 go build -o "$helper" ./sandbox/cmd/docket-sandbox-helper)
fi
mkdir -p "$inst/now"
cp "$docket" "$inst/now/docket"
cp "$helper" "$inst/now/docket-sandbox-helper"
baseflag=()
if [[ -n "$base" ]]; then
	for f in docket docket-sandbox-helper; do
		[[ -x "$base/$f" ]] || { echo "-b $base: no executable $f" >&2; exit 2; }
	done
	mkdir -p "$inst/base"
	cp "$base/docket" "$base/docket-sandbox-helper" "$inst/base/"
	baseflag=(-base "$inst/base")
fi
echo "building scripts/benchsandbox..." >&2
(cd "$root" && go build -o "$inst/benchsandbox" ./scripts/benchsandbox)

report="$work/report.md"
(cd "$root" && "$inst/benchsandbox" -n "$runs" -trace "${TRACE:-50}" -fill "${FILL:-0}" -docket "$inst/now/docket" "${baseflag[@]}") >"$report"
sed -i "s|$inst|\$INSTALL|g" "$report"
if [[ -n "$base" && -f "$base/COMMIT" ]]; then
	echo "Baseline (before): commit $(cut -c1-12 "$base/COMMIT")." >>"$report"
	echo >>"$report"
fi
if [[ "${GOBENCH:-1}" != 0 ]]; then
{
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
} >>"$report"
fi

cat "$report"
if [[ -n "$out" ]]; then
	mkdir -p "$(dirname "$out")"
	cp "$report" "$out"
	echo "wrote $out" >&2
fi
