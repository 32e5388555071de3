#!/usr/bin/env bash
# make demo: scripted sessions (no network, no API key) in a scratch git
# workspace, kept afterwards so that the README's next commands find them.
#   1. a known-safe command, a write the sandbox denies and a retry the
#      demo's decisions approve, an apply_patch;
#   2. a crash: docket killed with SIGKILL while a command runs, then resumed:
#      the command is recorded as interrupted, not run again;
#   3. an approval parked (no terminal, no decision) and answered later;
#   4. the audit's one-line "why" for everything that ran unsandboxed;
#   5. an @file reference and an automatic compaction, verify-replayed.
# DOCKET_DEMO_DIR (default ${TMPDIR:-/tmp}/docket-demo) holds the home and
# the workspace; each run starts it afresh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/bin/docket}")
demo=${DOCKET_DEMO_DIR:-${TMPDIR:-/tmp}/docket-demo}
home=$demo/home
ws=$demo/workspace
# The note the first session leaves outside the workspace.
trap 'rm -rf /var/tmp/docket-demo' EXIT
rm -rf "$demo" /var/tmp/docket-demo
mkdir -p "$home" "$ws"
echo hello > "$ws/README.txt"
# docket exec wants a git repository (as Codex does), so the agent's
# changes can be reviewed and undone.
skip=()
if command -v git >/dev/null; then
  git -C "$ws" init -q
else
  skip=(--skip-git-repo-check)
fi
export DOCKET_HOME=$home NO_COLOR=${NO_COLOR:-}

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
newest() { "$bin" sessions | awk 'NR == 2 { print $1 }'; }

say "1. docket exec (policy on-failure, sandbox workspace-write, scripted model)"
"$bin" exec "${skip[@]}" -C "$ws" -a on-failure -s workspace-write \
  --model-script "$root/testdata/demo/script.jsonl" --decisions approved \
  "Look around, leave a note for the team, and add a greeting file."
first=$(newest)
echo "-- the workspace afterwards:"
ls "$ws"
cat "$ws/hello.txt" "$ws/README.txt"
echo "note outside the workspace: $(cat /var/tmp/docket-demo/note.txt)"

say "2. a crash: kill -9 docket while its command runs, then resume"
"$bin" exec "${skip[@]}" -C "$ws" -a on-failure -s workspace-write \
  --model-script "$root/testdata/demo/crash.jsonl" "Run the slow build step." &
pid=$!
for _ in $(seq 100); do [ -e "$ws/.build-started" ] && break; sleep 0.1; done
[ -e "$ws/.build-started" ] || { echo "demo: the build step never started" >&2; exit 1; }
kill -9 "$pid"
wait "$pid" || echo "docket exited with status $? (killed by SIGKILL mid-command)"
# SIGKILL gives docket no chance to stop the command: it finishes on its
# own, still inside its sandbox. Let it, so the demo leaves nothing running.
for _ in $(seq 100); do grep -q finished "$ws/build.log" 2>/dev/null && break; sleep 0.1; done
crashed=$(newest)
"$bin" sessions | awk 'NR == 1 || NR == 2'
echo "-- docket resume $crashed: the call found mid-run is journaled as interrupted, outcome unknown, and not run again"
"$bin" resume "$crashed" --model-script "$root/testdata/demo/crash.jsonl"
echo "-- build.log: one start (the orphaned run finishing on its own), no second run:"
cat "$ws/build.log"
[ "$(grep -c started "$ws/build.log")" = 1 ] || { echo "demo: the build step ran twice" >&2; exit 1; }

say "3. an approval parked without a terminal, answered later"
status=0
"$bin" exec "${skip[@]}" -C "$ws" -a untrusted -s workspace-write \
  --model-script "$root/testdata/demo/parked.jsonl" "Create approved.txt." </dev/null || status=$?
parked=$(newest)
echo "docket exited with status $status (3: parked, waiting for a decision)"
echo "-- later: docket resume $parked --decisions approved"
"$bin" resume "$parked" --decisions approved --model-script "$root/testdata/demo/parked.jsonl"
ls "$ws/approved.txt"

say "4. docket audit --unsandboxed: why did anything run without the sandbox?"
"$bin" audit "$first" --unsandboxed

say "docket replay: the first session verify-replays with no model, no user, no processes"
"$bin" replay "$first"

say "5. @file references and automatic compaction of the context"
"$bin" exec "${skip[@]}" -C "$ws" -c model_auto_compact_token_limit=2000 \
  --model-script "$root/testdata/demo/context.jsonl" "What does @README.txt say, and how long is it?"
compacted=$(newest)
echo "-- the summary is journaled as an input; the session verify-replays with it:"
"$bin" replay "$compacted"

say "The sessions are kept. To look at them yourself:"
cat <<EOT
  export PATH=$(dirname "$bin"):\$PATH DOCKET_HOME=$home
  docket sessions
  docket audit $first --unsandboxed
  docket audit $crashed       # the interrupted call, outcome unknown
  docket replay $first
EOT
