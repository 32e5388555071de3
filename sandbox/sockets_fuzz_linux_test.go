package sandbox

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// procNetUnix writes /proc/net/unix as the kernel does (unix_seq_show):
// the fixed fields, then, for a bound socket, a space and the name's
// bytes as they are, '@' first for an abstract one.
func procNetUnix(names []string) []byte {
	var b bytes.Buffer
	b.WriteString("Num       RefCount Protocol Flags    Type St Inode Path\n")
	for i, n := range names {
		fmt.Fprintf(&b, "0000000000000000: 00000002 00000000 00010000 0001 01 %5d", 10000+i)
		if n != "" {
			b.WriteString(" " + n)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// FuzzParseProcNetUnix lists sockets with any names (any local program
// binds one, spaces, carriage returns and newlines included): every
// absolute name comes back exactly, once, so that the sandbox covers that
// socket and not a near name; else the list says it is incomplete. A name
// holding a newline reads as two lines, and may still forge a socket's
// line: that is the format's, see docs/sandbox.md.
func FuzzParseProcNetUnix(f *testing.F) {
	f.Add("/run/user/1000/bus\n\n@abstract\nrelative\n/run/user/1000/bus")
	f.Add("/tmp/sock \n/tmp/x\t")
	f.Add("/tmp/a\r\n /tmp/b")
	f.Add("/tmp/a\x00b")
	f.Fuzz(func(t *testing.T, list string) {
		var names []string
		for _, n := range strings.Split(list, "\n") {
			// A NUL ends a pathname; the kernel prints an abstract name's NULs as '@'.
			names = append(names, strings.ReplaceAll(n, "\x00", "@"))
		}
		got, complete, err := parseProcNetUnix(procNetUnix(names))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range names {
			if strings.HasPrefix(n, "/") && !slices.Contains(want, n) {
				want = append(want, n)
			}
		}
		if complete && !slices.Equal(got, want) {
			t.Fatalf("parsed %q from sockets named %q", got, want)
		}
		for _, p := range got {
			if !slices.Contains(want, p) {
				t.Fatalf("listed %q, which no socket is named", p)
			}
		}
	})
}

// TestBoundUnixSocketsKeepsNamesExact binds real sockets whose names end
// in a space and a carriage return: /proc/net/unix lists them, and the
// list names each exactly (a trimmed name is another file, and the
// socket would stay uncovered), and is complete.
func TestBoundUnixSocketsKeepsNamesExact(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for _, name := range []string{"s ", "r\r", "plain"} {
		p := filepath.Join(dir, name)
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: p}); err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}
	got, complete, err := boundUnixSockets()
	if err != nil || !complete {
		t.Fatalf("complete %t, %v", complete, err)
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("%q is not listed exactly; listed under %s: %q", p, dir, under(got, dir))
		}
	}
}

// TestParseProcNetUnixMarksSpilledLinesIncomplete: a name holding a
// newline spills a line without the fixed fields; the list says it is
// incomplete.
func TestParseProcNetUnixMarksSpilledLinesIncomplete(t *testing.T) {
	got, complete, err := parseProcNetUnix(procNetUnix([]string{"/tmp/a\nrest of the name", "/tmp/b"}))
	if err != nil || complete || !slices.Equal(got, []string{"/tmp/a", "/tmp/b"}) {
		t.Fatalf("got %q, complete %t, %v; want both listed and the list incomplete", got, complete, err)
	}
}

func under(paths []string, dir string) []string {
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, dir) {
			out = append(out, p)
		}
	}
	return out
}
