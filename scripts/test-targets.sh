#!/usr/bin/env bash
# test-targets.sh: print which make target runs each top-level test (make
# test-list passes the patterns the Makefile uses). The split, by which
# every test lands in at least one target:
#   test-race     every package but cmd/docket/e2e, -race, skipping SANDBOX_SLOW
#   test-cli      cmd/docket/e2e, skipping E2E_CRASH
#   test-sandbox  ./sandbox/... whole, without -race
#   test-e2e      cmd/docket/e2e, only E2E_CRASH
# Output: one line per test, "TARGET[,TARGET] PACKAGE TEST", then a count
# per target. go test -list compiles every test binary (no -race): about a
# minute when the build cache is warm.
#
# Usage: SANDBOX_SLOW=RE E2E_CRASH=RE scripts/test-targets.sh
set -euo pipefail
: "${SANDBOX_SLOW:?set SANDBOX_SLOW (make test-list does)}"
: "${E2E_CRASH:?set E2E_CRASH (make test-list does)}"

module="$(go list -m)"
while read -r pkg test; do
	short="${pkg#"$module"/}"
	targets=()
	case "$short" in
	cmd/docket/e2e)
		if [[ "$test" =~ $E2E_CRASH ]]; then targets+=(test-e2e); else targets+=(test-cli); fi
		;;
	sandbox | sandbox/*)
		[[ "$test" =~ $SANDBOX_SLOW ]] || targets+=(test-race)
		targets+=(test-sandbox)
		;;
	*)
		targets+=(test-race)
		;;
	esac
	(IFS=,; echo "${targets[*]} $short $test")
done < <(go test -list '^(Test|Fuzz|Example)' ./... 2>/dev/null |
	awk '/^(ok|\?) /{ for (i = 0; i < n; i++) print $2, t[i]; n = 0; next } /^(Test|Fuzz|Example)/ { t[n++] = $1 }') |
	sort | awk '{ print; split($1, a, ","); for (i in a) c[a[i]]++; n++ }
		END { printf "%d tests:", n; for (k in c) printf " %s %d", k, c[k]; print "" }'
