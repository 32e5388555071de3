#!/usr/bin/env bash
# Times one sandboxed command through each tool's egress proxy, side by
# side (issue 29, "Peers and figures"): docket sandbox --permissions,
# Codex 0.171's `codex sandbox --enable network_proxy -P NAME` and srt
# (@anthropic-ai/sandbox-runtime), plus the command unsandboxed.
#
#   scripts/bench-egress-peers.sh curl  [rounds] [runs]   a GET of a loopback page
#   scripts/bench-egress-peers.sh clone [rounds] [runs]   git clone over smart HTTP
#
# Needs: bin/docket (make build), hyperfine, python3, git; Codex 0.171 in
# .cache/codex171 (CODEX_VERSION=0.171.0 CODEX_DIR=.cache/codex171
# scripts/install-codex.sh) and srt in .cache/srt (npm install --prefix
# .cache/srt @anthropic-ai/sandbox-runtime@0.0.83); a peer that is missing
# is left out. Each round is one hyperfine run of every candidate, the
# order rotated between rounds so none always goes first; the JSON of each
# round is left in the scratch directory printed at the end.
set -euo pipefail

what="${1:-curl}"
rounds="${2:-3}"
runs="${3:-8}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
docket="${DOCKET:-$root/bin/docket}"
codex="$(find "$root/.cache/codex171/node_modules/@openai" -path '*/bin/codex' -type f 2>/dev/null | head -1 || true)"
srt="${SRT:-$root/.cache/srt/node_modules/.bin/srt}"

# Not under /tmp: Codex refuses to put its helper links under a temporary
# directory (CODEX_HOME is in the scratch directory). bin/ is the
# checkout's own (.cache may be shared between worktrees).
mkdir -p "$root/bin"
scratch="$(mktemp -d "$root/bin/bench-egress-peers.XXXXXX")"
port=$((20000 + RANDOM % 20000))

# The same profile for docket and Codex: the whole disk readable, the
# working directory writable, the network on with one allowed name.
mkdir -p "$scratch/dhome" "$scratch/chome" "$scratch/www" "$scratch/work"
profile='[permissions.net.filesystem]
":root" = "read"
":project_roots" = { "." = "write" }
":tmpdir" = "write"

[permissions.net.network]
enabled = true

[permissions.net.network.domains]
"localhost" = "allow"
'
printf '%s' "$profile" >"$scratch/dhome/config.toml"
printf 'default_permissions = "net"\n%s' "$profile" >"$scratch/chome/config.toml"
printf '{"network":{"allowedDomains":["localhost"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["%s","/tmp"],"denyWrite":[]}}\n' "$scratch/work" >"$scratch/srt.json"

case "$what" in
curl)
	echo "a loopback page" >"$scratch/www/index.html"
	python3 -m http.server "$port" --bind 127.0.0.1 -d "$scratch/www" >/dev/null 2>&1 &
	server=$!
	# --noproxy "": srt's NO_PROXY names localhost, which would bypass its proxy.
	cmd="curl -sS -f --noproxy '' -o /dev/null http://localhost:$port/"
	;;
clone)
	# A real repository behind git http-backend (smart HTTP), served by a
	# small CGI server: python's http.server cannot run http-backend's
	# path-info URLs, so the Go test server's twin is used.
	git init -q --bare "$scratch/www/repo.git"
	git -C "$scratch/www/repo.git" config http.receivepack false
	tmp="$scratch/seed"
	git init -q "$tmp"
	for i in $(seq 1 200); do printf 'file %d\n%s\n' "$i" "$(head -c 2000 /dev/urandom | base64)" >"$tmp/f$i.txt"; done
	git -C "$tmp" add -A && git -C "$tmp" -c user.name=b -c user.email=b@b commit -qm seed
	git -C "$tmp" push -q "$scratch/www/repo.git" HEAD:refs/heads/main
	git -C "$scratch/www/repo.git" symbolic-ref HEAD refs/heads/main
	(cd "$root" && go build -o "$scratch/githttp" ./scripts/githttp)
	"$scratch/githttp" -addr "127.0.0.1:$port" -root "$scratch/www" &
	server=$!
	cmd="git -c http.proxy= clone -q http://localhost:$port/repo.git $scratch/work/clone"
	# NO_PROXY emptied: srt lists localhost in it, which would skip its proxy.
	cmd_proxy="export NO_PROXY= no_proxy=; git clone -q http://localhost:$port/repo.git $scratch/work/clone"
	# Removed before each run, outside every sandbox: docket keeps a .git
	# already there read-only.
	prepare="rm -rf $scratch/work/clone"
	;;
*)
	echo "usage: $0 curl|clone [rounds] [runs]" >&2
	exit 2
	;;
esac
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.2; done
cmd_proxy="${cmd_proxy:-$cmd}"

names=(plain docket)
cmds=("sh -c \"$cmd\"" "DOCKET_HOME=$scratch/dhome $docket sandbox -C $scratch/work --permissions net -- sh -c \"$cmd_proxy\"")
if [ -n "$codex" ]; then
	names+=(codex)
	cmds+=("cd $scratch/work && CODEX_HOME=$scratch/chome $codex sandbox --enable network_proxy -P net -- sh -c \"$cmd_proxy\"")
fi
if [ -x "$srt" ]; then
	names+=(srt)
	cmds+=("cd $scratch/work && $srt --settings $scratch/srt.json -- sh -c \"$cmd_proxy\"")
fi

prepare="${prepare:-true}"
# Each candidate must succeed once before it is timed.
for i in "${!cmds[@]}"; do
	bash -c "$prepare"
	bash -c "${cmds[$i]}" >/dev/null || { echo "bench-egress-peers: ${names[$i]} failed: ${cmds[$i]}" >&2; exit 1; }
done

n=${#cmds[@]}
for r in $(seq 1 "$rounds"); do
	args=()
	for k in $(seq 0 $((n - 1))); do
		i=$(((k + r - 1) % n))
		args+=(-n "${names[$i]}" "${cmds[$i]}")
	done
	echo "round $r, load: $(cut -d' ' -f1-3 /proc/loadavg)"
	hyperfine -S bash --prepare "$prepare" -w 1 -r "$runs" --export-json "$scratch/round$r.json" --style basic "${args[@]}" 2>&1 |
		grep -E '^(Benchmark|  Time|  Range)' || true
	echo "after round $r, load: $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "rounds in $scratch"
