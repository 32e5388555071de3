package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// What the file system, socket and limit layers add to each call, measured
// apart from the helper's start: the walk for git directories, the parse of
// /proc/net/unix, and making and removing the call's cgroup leaf.

// benchTree makes dirs directories of files files each, with a nested
// repository every 50 directories, and returns its root.
func benchTree(b *testing.B, dirs, files int) string {
	root := b.TempDir()
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d%20), fmt.Sprintf("d%d", d))
		if d%50 == 0 {
			dir = filepath.Join(dir, ".git")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < files; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

func benchmarkGitDirs(b *testing.B, dirs, files int) {
	root := benchTree(b, dirs, files)
	partial := 0
	for b.Loop() {
		if !gitwalk.Find([]string{root}, root, nil).Complete {
			partial++
		}
	}
	// Under the entry bound only the time bound can cut the walk short.
	b.ReportMetric(float64(partial)/float64(b.N), "partial/op")
}

func BenchmarkGitDirs1kEntries(b *testing.B) { benchmarkGitDirs(b, 100, 10) }
func BenchmarkGitDirs5kEntries(b *testing.B) { benchmarkGitDirs(b, 500, 10) }

// BenchmarkGitDirsBounded is the worst case: a tree past the bound, cut
// short at gitwalk.MaxEntries.
func BenchmarkGitDirsBounded(b *testing.B) {
	root := benchTree(b, 2000, 30)
	for b.Loop() {
		if gitwalk.Find([]string{root}, root, nil).Complete {
			b.Fatal("a 62k-entry tree was walked whole, past the bounds")
		}
	}
}

// BenchmarkGitDirsThisRepository walks this checkout and the machine's
// /tmp, as a session in this repository with the default roots would.
func BenchmarkGitDirsThisRepository(b *testing.B) {
	repo, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		gitwalk.Find([]string{repo, "/tmp"}, repo, nil)
	}
}

func BenchmarkParseProcNetUnix2000(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("Num       RefCount Protocol Flags    Type St Inode Path\n")
	for i := 0; i < 2000; i++ {
		path := ""
		if i%4 == 0 {
			path = fmt.Sprintf(" /run/user/1000/app%d/bus", i%100)
		}
		fmt.Fprintf(&sb, "0000000000000000: 00000002 00000000 00010000 0001 01 %d%s\n", 10000+i, path)
	}
	data := []byte(sb.String())
	for b.Loop() {
		paths, complete, err := parseProcNetUnix(data)
		if err != nil || !complete || len(paths) != 25 {
			b.Fatalf("%d paths, complete %t: %v", len(paths), complete, err)
		}
	}
}

func BenchmarkBoundUnixSocketsHere(b *testing.B) {
	for b.Loop() {
		if _, _, err := boundUnixSockets(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallCgroup(b *testing.B) {
	if newCallCgroup(DefaultLimits()) == nil {
		b.Skip("no writable cgroup here")
	}
	for b.Loop() {
		cg := newCallCgroup(events.ResourceLimits{MaxProcesses: 64, MaxMemoryMB: 64})
		if err := cg.Remove(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunTrueWorkspaceWriteDefaultLimits(b *testing.B) {
	benchmarkRun(b, "", func(w string) events.SandboxPlan {
		p := workspaceWritePlan(w)
		p.Limits = DefaultLimits()
		return p
	})
}

// BenchmarkStubsSix makes, records, releases and unrecords the six
// stubs of a call whose two roots have no .git, .docket, .agents
// (a workspace and /tmp, as in a session); NoRecords without the record.
func BenchmarkStubsSix(b *testing.B)          { benchmarkStubs(b, true) }
func BenchmarkStubsSixNoRecords(b *testing.B) { benchmarkStubs(b, false) }

func benchmarkStubs(b *testing.B, recorded bool) {
	roots := []string{b.TempDir(), b.TempDir()}
	var paths []string
	for _, r := range roots {
		for _, n := range []string{".git", ".docket", ".agents"} {
			paths = append(paths, filepath.Join(r, n))
		}
	}
	records := ""
	if recorded {
		records = b.TempDir()
	}
	for b.Loop() {
		_, release, err := stubs.Hold(paths, roots, records)
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}
