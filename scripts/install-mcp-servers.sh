#!/usr/bin/env bash
# Installs the npm MCP servers that engine/mcp's tests run against, and the
# MCP Inspector whose CLI cmd/docket/e2e drives docket mcp-server with, into a
# repo-local folder (default: <repo>/.cache/mcp, override with MCP_SERVERS_DIR).
# Idempotent: when the pinned versions are already installed it does nothing.
set -euo pipefail

EVERYTHING_VERSION=2026.8.31
FILESYSTEM_VERSION=2026.8.31
INSPECTOR_VERSION=2.12.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${MCP_SERVERS_DIR:-$root/.cache/mcp}"

installed_version() {
	# Prints the installed version of package $1, or nothing.
	local pj="$dir/node_modules/$1/package.json"
	[ -f "$pj" ] || return 0
	node -e 'process.stdout.write(require(process.argv[1]).version)' "$pj"
}

if [ "$(installed_version @modelcontextprotocol/server-everything)" = "$EVERYTHING_VERSION" ] &&
	[ "$(installed_version @modelcontextprotocol/server-filesystem)" = "$FILESYSTEM_VERSION" ] &&
	[ "$(installed_version @modelcontextprotocol/inspector)" = "$INSPECTOR_VERSION" ]; then
	echo "install-mcp-servers: up to date in $dir"
	exit 0
fi

command -v npm >/dev/null || { echo "install-mcp-servers: npm not found (apt-get install nodejs npm)" >&2; exit 1; }
mkdir -p "$dir"
# A package.json of our own keeps npm from walking up into the repository.
[ -f "$dir/package.json" ] || printf '{"name":"docket-mcp-test-servers","private":true}\n' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
	"@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
	"@modelcontextprotocol/server-filesystem@$FILESYSTEM_VERSION" \
	"@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
echo "install-mcp-servers: installed into $dir"
