# Docket's build, test, demo and benchmark entry points.
GO      ?= go
BIN     := bin/docket
PKGS    := ./...

.PHONY: all build demo test vet race fuzz fault bench bench-journal bench-sandbox bench-engine bench-e2e bench-tui clean

all: build

# bin/docket is the full docket, one Go binary; `docket sandbox` is one
# process per call (no daemon, no socket: docs/decisions.md, issue 26). The
# lean sandbox helper next to it saves docket's start-up on every sandboxed
# command that starts its own helper (sandbox.DefaultHelperPath picks it up).
#
# DOCKET_TAGS: grpcnotrace keeps golang.org/x/net/trace (gRPC's optional
# request tracing, which docket never turns on) and the html/template it
# pulls in out of the binary: their initialisers run in every docket
# process, and the binary is 11 MB smaller. A plain `go build ./cmd/docket`
# works the same, only starts a little slower (docs/decisions.md).
DOCKET_TAGS := grpcnotrace
build:
	$(GO) build -buildvcs=auto -tags $(DOCKET_TAGS) -o $(BIN) ./cmd/docket
	CGO_ENABLED=0 $(GO) build -o bin/docket-sandbox-helper ./sandbox/cmd/docket-sandbox-helper

# The main job: a scripted session in a scratch workspace, no network needed.
demo: build
	./scripts/demo.sh $(BIN)

# Static checks. The linters are pinned here and installed with go install
# into bin/tools on first use, so a clean CI machine needs only the Go
# module proxy. errcheck covers every package but skips tests (they fail
# loudly on the errors that matter); terminal writes are excluded in
# .ci/errcheck-excludes.txt. The darwin build keeps the portable parts
# (the Seatbelt profile, the CLI) compiling off Linux.
TOOLS               := $(CURDIR)/bin/tools
STATICCHECK_VERSION := v0.8.2
ERRCHECK_VERSION    := v1.30.0
ERRCHECK_PKGS        = ./...

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(TOOLS)/errcheck:
	GOBIN=$(TOOLS) $(GO) install github.com/kisielk/errcheck@$(ERRCHECK_VERSION)

# The test targets run go test through gotestsum, which prints what go test
# prints and ends with every skipped test and its reason: a suite that
# skips on a machine without namespaces or cgroups says so in the log
# instead of passing quietly.
GOTESTSUM_VERSION := v1.13.0
GOTEST             = $(TOOLS)/gotestsum --format standard-quiet --
$(TOOLS)/gotestsum:
	GOBIN=$(TOOLS) $(GO) install gotest.tools/gotestsum@$(GOTESTSUM_VERSION)

vet: $(TOOLS)/staticcheck $(TOOLS)/errcheck api-check
	$(GO) mod tidy -diff
	$(GO) vet $(PKGS)
	GOOS=darwin $(GO) build $(PKGS)
	# Tests too (the e2e suite's Linux-only files carry go:build linux):
	# the build above type-checks no _test.go file.
	GOOS=darwin $(GO) vet $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(TOOLS)/staticcheck $(PKGS)
	$(TOOLS)/errcheck -ignoretests -exclude .ci/errcheck-excludes.txt $(ERRCHECK_PKGS)

# The exported API of the packages an embedding program imports, one
# declaration per line, no comments (internal/apilist): make vet fails when
# it differs from testdata/api/, so that an API change is a decision, and
# make api records one.
API_PKGS := engine engine/session replay replay/replaytest
.PHONY: api api-check
api:
	@mkdir -p testdata/api
	@for p in $(API_PKGS); do $(GO) run ./internal/apilist ./$$p > testdata/api/$$(echo $$p | tr / _).txt || exit 1; done

api-check:
	@for p in $(API_PKGS); do \
		$(GO) run ./internal/apilist ./$$p | diff -u testdata/api/$$(echo $$p | tr / _).txt - || \
		{ echo "the exported API of $$p changed: if that is meant, make api records it (say why in the commit)"; exit 1; }; \
	done

# Tests. `make test` is the everyday loop, at most 10 minutes on two cores:
# the static checks; every package under the race detector except the slow
# process suites below; the command-line tests through the built binary
# (cmd/docket/e2e, no -race: the processes it drives are the plain docket
# binary); and the demo. The slow suites, which mostly wait on the sandbox
# starting real processes, run without -race in targets of their own:
#   test-sandbox  the whole sandbox package: the escape suites through
#                 every path (per-call helper, lean helper, session server,
#                 user namespaces) and the cost of missing layers
#   test-e2e      the crash, power-loss and fault-storm tests of cmd/docket/e2e
# CI (.ci/run) runs `make test-all`: all three. Every test runs in at least
# one of them (`make test-list` prints which).
#
# The binaries the tests run (docket, docket built with the docketfault tag,
# the lean sandbox helper, the test OpenTelemetry Collector) are built once
# by test-bins and named to the tests by environment variables; a test run
# without them (plain go test) builds its own.
TESTBIN  := $(CURDIR)/bin/test
# TESTFLAGS go to every go test below; TESTFLAGS=-count=1 runs tests whose
# results go test has cached (it cannot see that a binary they run changed).
TESTFLAGS ?=
TEST_ENV  = DOCKET_TEST_BIN=$(TESTBIN)/docket DOCKET_TEST_FAULT_BIN=$(TESTBIN)/docket-fault \
	DOCKET_TEST_HELPER=$(TESTBIN)/lean/docket-sandbox-helper DOCKET_TEST_OTELCOL=$$(./scripts/build-otelcol.sh)
# The tests test-sandbox and test-e2e take out of `make test`, as -run/-skip
# patterns (top-level test names, anchored).
SANDBOX_SLOW := ^(TestEscapeSuite.*|TestMissingNamespacesCostWhatExplainSays|TestWorkloadsStillWork)$$
E2E_CRASH    := ^(TestFaultStorm|TestKilledSessionsResumeWithoutLossOrRepeats|TestPower.*|TestDamagedNewestMetaAfterACrashDoesNotRunACommandTwice|TestKillWhileTheModelThinks|TestCommandDiesWithDocket|TestResumeAfterACrashRightAfterCompaction|TestSubagentCrashMidRunThenResume)$$
E2E_PKG      := ./cmd/docket/e2e/
RACE_PKGS     = $(filter-out %/cmd/docket/e2e,$(shell $(GO) list $(PKGS)))

.PHONY: test-bins test-race test-cli test-sandbox test-e2e test-all test-list
test-bins: $(TOOLS)/gotestsum
	$(GO) build -tags $(DOCKET_TAGS) -o $(TESTBIN)/docket ./cmd/docket
	$(GO) build -tags docketfault,$(DOCKET_TAGS) -o $(TESTBIN)/docket-fault ./cmd/docket
	CGO_ENABLED=0 $(GO) build -o $(TESTBIN)/lean/docket-sandbox-helper ./sandbox/cmd/docket-sandbox-helper
	./scripts/build-otelcol.sh >/dev/null

# Every package but cmd/docket/e2e under the race detector, the sandbox's
# slow suites left to test-sandbox.
test-race: test-bins
	$(TEST_ENV) $(GOTEST) $(TESTFLAGS) -race -timeout 20m -skip '$(SANDBOX_SLOW)' $(RACE_PKGS)

# cmd/docket/e2e but its crash suites, without -race.
test-cli: test-bins
	$(TEST_ENV) $(GOTEST) $(TESTFLAGS) -timeout 20m -skip '$(E2E_CRASH)' $(E2E_PKG)

test-sandbox: test-bins
	$(TEST_ENV) $(GOTEST) $(TESTFLAGS) -timeout 30m ./sandbox/...

test-e2e: test-bins
	$(TEST_ENV) $(GOTEST) $(TESTFLAGS) -timeout 30m -run '$(E2E_CRASH)' $(E2E_PKG)

# The old name: the whole suite under the race detector, escape suites
# included (about 20 minutes on two cores).
race: test-bins
	$(TEST_ENV) $(GOTEST) $(TESTFLAGS) -race -timeout 40m $(PKGS)

# The everyday loop.
test: vet test-race test-cli demo

# What CI runs.
test-all: test test-sandbox test-e2e

# Which target runs each test (scripts/test-targets.sh).
test-list: test-bins
	$(TEST_ENV) SANDBOX_SLOW='$(SANDBOX_SLOW)' E2E_CRASH='$(E2E_CRASH)' ./scripts/test-targets.sh

# Short fuzzing pass over every fuzz target (FUZZTIME per target).
FUZZTIME ?= 20s
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

# A long fault storm (cmd/docket/e2e/storm_test.go): random kill -9s of
# docket exec over a scripted session with parallel calls, approvals, an
# approval timeout, saved prefix rules and an MCP call, each followed by
# resume, verify replay and audit with every invariant checked. Each trial
# takes one shape (storm_shapes_test.go): exec, docket chat on a pty,
# every call judged by an unsandboxed hook (whose processes may outlive
# only a killed docket), three resumes of the killed session at once, or a
# subagent tree (two subagents at once, one with its own subagent) killed
# at a random point, whose every journal, parent's and children's, is
# checked. The normal test run has a bounded storm of 10 trials.
# DOCKET_STORM_SHAPE="subagent tree" (or another shape's name) runs only
# that shape. FAULT_SEED reproduces a storm (kill points and delays; the
# interleaving of parallel calls still varies); failing trials' journals
# are kept in FAULT_KEEP.
FAULT_TRIALS ?= 200
FAULT_SEED   ?= $(shell date +%s)
FAULT_KEEP   ?= /tmp/docket-fault-failures
fault:
	@echo "fault storm: $(FAULT_TRIALS) trials, FAULT_SEED=$(FAULT_SEED)"
	DOCKET_STORM_TRIALS=$(FAULT_TRIALS) DOCKET_STORM_SEED=$(FAULT_SEED) DOCKET_STORM_KEEP=$(FAULT_KEEP) \
		$(GO) test -count=1 -timeout 0 -run '^TestFaultStorm$$' -v ./cmd/docket/e2e/

bench: bench-journal bench-engine bench-sandbox bench-e2e bench-tui

bench-journal:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./journal/ ./events/ ./states/... ./replay/...

bench-engine:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./engine/...

# The interactive UI: keystroke cost in the model, and keystroke-to-render
# latency and memory through the binary on a pty over 1,000 scripted turns.
bench-tui:
	$(GO) test -run '^$$' -bench . -benchmem ./cmd/docket/internal/tui/
	$(GO) test -run '^$$' -bench ChatKeystrokeEcho -benchtime 200x ./cmd/docket/

# One interleaved run of bare, bwrap, docket sandbox, in-process sandbox.Run and
# Codex (scripts/benchsandbox), with a per-phase breakdown; then the Go benchmarks.
# BENCH_BASE=DIR times a baseline install (DIR/docket, DIR/docket-sandbox-helper)
# interleaved with this one; BENCH_REV=REV runs the in-process benchmarks of
# that revision alternately with the current ones; FILL=10000 first puts a
# scratch tree of that many entries in /tmp (removed after), past the git
# walk's bound as on a busy machine.
bench-sandbox: build
	DOCKET=$(BIN) HELPER=bin/docket-sandbox-helper ./scripts/bench-sandbox.sh \
		$(if $(BENCH_BASE),-b $(BENCH_BASE)) $(if $(BENCH_REV),-g $(BENCH_REV))

# End to end (issue 17): 30 sequential `bash -c true` calls through
# `docket exec` (scripted model) under danger-full-access and
# workspace-write, interleaved round by round with the yardstick (a bare
# `bash -c true` fork/exec + one fsync on $DOCKET_HOME's filesystem); medians,
# p10/p90 and ratios. BENCH_BASE=DIR times a baseline install alongside;
# E2E_ROUNDS sets the rounds.
E2E_ROUNDS ?= 20
bench-e2e: build
	DOCKET=$(BIN) ./scripts/bench-e2e.sh -n $(E2E_ROUNDS) $(if $(BENCH_BASE),-b $(BENCH_BASE))

clean:
	rm -rf bin
