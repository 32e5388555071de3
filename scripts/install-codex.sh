#!/usr/bin/env bash
# Installs the Codex CLI (npm @openai/codex, pinned) into <repo>/.cache/codex
# (override with CODEX_DIR): the agents e2e test drives it against a loopback
# Responses server, and make bench-sandbox times its sandbox. Idempotent.
# CODEX_VERSION=0.171.0 CODEX_DIR=<repo>/.cache/codex171 installs the second
# version the exec side-by-side test (TestExecSideBySideWithCodex) compares.
set -euo pipefail

CODEX_VERSION="${CODEX_VERSION:-0.169.0}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${CODEX_DIR:-$root/.cache/codex}"
pj="$dir/node_modules/@openai/codex/package.json"
if [ -f "$pj" ] && [ "$(node -e 'process.stdout.write(require(process.argv[1]).version)' "$pj")" = "$CODEX_VERSION" ]; then
	echo "install-codex: $CODEX_VERSION up to date in $dir"
	exit 0
fi
command -v npm >/dev/null || { echo "install-codex: npm not found (apt-get install nodejs npm)" >&2; exit 1; }
mkdir -p "$dir"
[ -f "$dir/package.json" ] || printf '{"name":"docket-codex-cli","private":true}\n' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@openai/codex@$CODEX_VERSION"
echo "install-codex: installed @openai/codex@$CODEX_VERSION in $dir"
