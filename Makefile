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
build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/docket
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

vet: $(TOOLS)/staticcheck $(TOOLS)/errcheck
	$(GO) mod tidy -diff
	$(GO) vet $(PKGS)
	GOOS=darwin $(GO) build $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(TOOLS)/staticcheck $(PKGS)
	$(TOOLS)/errcheck -ignoretests -exclude .ci/errcheck-excludes.txt $(ERRCHECK_PKGS)

# The sandbox package takes about 12.5 minutes under -race, here and on
# CI; the time-out leaves room for a slower machine.
race:
	$(GO) test -race -timeout 40m $(PKGS)

# What CI runs: static checks, the whole suite under the race detector, and
# the demo end to end.
test: vet race demo

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
# only a killed docket), or three resumes of the killed session at once. The normal
# test run has a bounded storm of 10 trials. FAULT_SEED reproduces a storm
# (kill points and delays; the interleaving of parallel calls still varies);
# failing trials' journals are kept in FAULT_KEEP.
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
# that revision alternately with the current ones.
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
