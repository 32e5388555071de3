#!/usr/bin/env bash
# make demo: a scripted session (no network, no API key) in a scratch
# workspace. It shows a known-safe command running without a prompt, a write
# the sandbox denies and a retry the demo's decisions approve, an
# apply_patch, and then the audit of what ran without the sandbox.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/bin/docket}")
work=$(mktemp -d "${TMPDIR:-/tmp}/docket-demo.XXXXXX")
trap 'rm -rf "$work" /var/tmp/docket-demo' EXIT
home=$work/home
ws=$work/workspace
mkdir -p "$home" "$ws"
rm -rf /var/tmp/docket-demo
echo hello > "$ws/README.txt"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "docket exec (policy on-failure, sandbox workspace-write, scripted model)"
"$bin" exec --skip-git-repo-check --home "$home" -C "$ws" -a on-failure -s workspace-write \
  --model-script "$root/testdata/demo/script.jsonl" --decisions approved \
  "Look around, leave a note for the team, and add a greeting file."

say "the workspace afterwards"
ls -la "$ws"
cat "$ws/hello.txt" "$ws/README.txt"
echo "note outside the workspace: $(cat /var/tmp/docket-demo/note.txt)"

say "docket audit --unsandboxed: why did anything run without the sandbox?"
"$bin" audit --home "$home" last --unsandboxed

say "docket replay: the journal verify-replays with no model, no user, no processes"
"$bin" replay --home "$home" last
