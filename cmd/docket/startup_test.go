package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

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
	bin := cliBinary(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("docket --version: %v\n%s", err, stderr.String())
	}
	const bound = 12 << 10
	total, lines := 0, 0
	var ours []string
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		lines++
		if f[1] != "main" && !strings.HasPrefix(f[1], "github.com/docket-engine/docket/") {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("init trace line %q: %v", sc.Text(), err)
		}
		total += b
		ours = append(ours, f[1]+" "+f[7]+" B")
	}
	if lines == 0 {
		t.Fatalf("no init trace in docket's stderr:\n%s", stderr.String())
	}
	if total > bound {
		t.Errorf("docket's own package initialisers allocate %d bytes at every start, want at most %d (make the value on first use):\n%s",
			total, bound, strings.Join(ours, "\n"))
	}
}
