//go:build ignore

// bench-e2e-base.go is the yardstick of scripts/bench-e2e.sh: N times, a
// bare `bash -c true` fork/exec and one fsync of a file, timed from inside
// (so its own start-up is not counted). It prints the elapsed seconds.
//
//	go build -o base scripts/bench-e2e-base.go; ./base 30 $DOCKET_HOME/fsync.dat
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: bench-e2e-base N FILE")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 1 || n > 100000 {
		fmt.Fprintln(os.Stderr, "bench-e2e-base: N must be a number from 1 to 100000")
		os.Exit(2)
	}
	f, err := os.OpenFile(os.Args[2], os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-e2e-base:", err)
		os.Exit(1)
	}
	defer f.Close()
	buf := []byte("x")
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			fmt.Fprintln(os.Stderr, "bench-e2e-base: bash -c true:", err)
			os.Exit(1)
		}
		// A write first, so the fsync has something to flush, as a
		// journal commit does.
		if _, err := f.WriteAt(buf, int64(i%4096)); err != nil {
			fmt.Fprintln(os.Stderr, "bench-e2e-base:", err)
			os.Exit(1)
		}
		if err := f.Sync(); err != nil {
			fmt.Fprintln(os.Stderr, "bench-e2e-base: fsync:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("%.6f\n", time.Since(start).Seconds())
}
