package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// initTrace is one line of GODEBUG=inittrace=1: a package whose
// initialisers ran, and the bytes they allocated.
type initTrace struct {
	pkg   string
	bytes int
}

// docketInitTrace runs docket --version under GODEBUG=inittrace=1 and
// returns every package initialiser's line.
func docketInitTrace(t *testing.T) []initTrace {
	t.Helper()
	bin := cliBinary(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("docket --version: %v\n%s", err, stderr.String())
	}
	var inits []initTrace
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("init trace line %q: %v", sc.Text(), err)
		}
		inits = append(inits, initTrace{pkg: f[1], bytes: b})
	}
	if len(inits) == 0 {
		t.Fatalf("no init trace in docket's stderr:\n%s", stderr.String())
	}
	return inits
}

// TestDocketsOwnPackageInitialisersStayCheap: every docket process runs
// every package initialiser linked into the binary, whatever the verb, so
// `docket sandbox -- true` (one process per call, issue 26) pays for them
// on every call. Docket's own (main and the module's packages) make what
// they need on first use (sync.OnceValue) instead: a regular expression
// compiled at package level costs each start a few kilobytes and tens of
// microseconds. The runtime's init trace counts the bytes each
// package's initialisers allocate, which does not depend on the machine's
// load; the bound is about twice what they allocate now (an os.Stat, the
// environment).
func TestDocketsOwnPackageInitialisersStayCheap(t *testing.T) {
	const bound = 12 << 10
	total := 0
	var ours []string
	for _, in := range docketInitTrace(t) {
		if in.pkg != "main" && !strings.HasPrefix(in.pkg, "github.com/docket-engine/docket/") {
			continue
		}
		total += in.bytes
		ours = append(ours, fmt.Sprintf("%s %d B", in.pkg, in.bytes))
	}
	if total > bound {
		t.Errorf("docket's own package initialisers allocate %d bytes at every start, want at most %d (make the value on first use):\n%s",
			total, bound, strings.Join(ours, "\n"))
	}
}

// unlinkedForStartUp are packages whose initialisers docket keeps out of
// its binary (docs/decisions.md, "Docket's start-up: library
// initialisers"), with what replaces them.
var unlinkedForStartUp = map[string]string{
	"golang.org/x/net/trace": "gRPC's request tracing, off in docket: build with -tags grpcnotrace (make build does)",
	"html/template":          "linked only through golang.org/x/net/trace",
}

// TestLibraryInitialisersStayCheap: the libraries' initialisers are most
// of what every docket process runs before main (docs/benchmarks.md,
// "Docket's start-up"). Those cut out of the binary must not come back
// through a new import, and all of them together must not grow
// unnoticed: the bound on their allocated bytes (load-independent, unlike
// their clock) is about 14% over what they allocate now (1.73 MB, of
// which goldmark's extension and parser 0.55 MB, chroma's lexer registry
// 0.33 MB, openai-go 0.27 MB). A new dependency whose initialisers push past it
// should be a decision: a sub-package that avoids them, or the bound
// raised with the figure in the commit.
func TestLibraryInitialisersStayCheap(t *testing.T) {
	const bound = 1920 << 10
	inits := docketInitTrace(t)
	total := 0
	for _, in := range inits {
		total += in.bytes
		if why, ok := unlinkedForStartUp[in.pkg]; ok {
			t.Errorf("%s is linked into docket again (%d bytes at every start): %s", in.pkg, in.bytes, why)
		}
	}
	if total > bound {
		sort.Slice(inits, func(i, j int) bool { return inits[i].bytes > inits[j].bytes })
		var top []string
		for _, in := range inits[:min(15, len(inits))] {
			top = append(top, fmt.Sprintf("%s %d B", in.pkg, in.bytes))
		}
		t.Errorf("docket's package initialisers allocate %d bytes at every start, want at most %d; the largest:\n%s",
			total, bound, strings.Join(top, "\n"))
	}
}
