package sandbox

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/internal/elide"
)

func TestHeadTail(t *testing.T) {
	h := newHeadTail(10)
	h.write([]byte("0123"))
	h.write([]byte("4567"))
	if h.truncated() || h.String() != "01234567" {
		t.Fatalf("under the cap: %q", h.String())
	}
	h.write([]byte("89abcdefgh"))
	if !h.truncated() {
		t.Fatal("not truncated")
	}
	want := "01234" + elide.Marker(8) + "defgh"
	if got := h.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func FuzzHeadTail(f *testing.F) {
	f.Add([]byte("hello, world"), 5, 3)
	f.Add([]byte(strings.Repeat("x", 100)), 7, 13)
	f.Fuzz(func(t *testing.T, data []byte, limit, chunk int) {
		if limit < 1 || limit > 4096 || chunk < 1 {
			return
		}
		h := newHeadTail(limit)
		for p := data; len(p) > 0; {
			n := min(chunk, len(p))
			h.write(p[:n])
			p = p[n:]
		}
		got := h.String()
		if len(data) <= limit {
			if got != string(data) {
				t.Fatalf("got %q, want %q", got, data)
			}
			return
		}
		if !h.truncated() || !strings.Contains(got, "bytes elided") {
			t.Fatalf("truncation not marked: %q", got)
		}
		head, tail, _ := strings.Cut(got, "\n[... ")
		_, tail, _ = strings.Cut(tail, " ...]\n")
		if !strings.HasPrefix(string(data), head) || !strings.HasSuffix(string(data), tail) {
			t.Fatalf("head %q / tail %q not from %q", head, tail, data)
		}
	})
}

// A reader the drain's deadline stops (its process outside the group
// holds the pipe open, or it was not scheduled before drainDelay on a
// loaded machine) still keeps what the command wrote into the pipe:
// TestParentDeathSignalIgnoresThreadChurn lost a command's "ok" that way.
func TestPumpStoppedByTheDeadlineKeepsWhatThePipeHolds(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // held open: no EOF, as a process outside the group would
	if _, err := w.Write([]byte("ok\n")); err != nil {
		t.Fatal(err)
	}
	// The deadline is set before the reader runs: its Read returns without
	// reading, as when drain gives up on a reader not yet scheduled.
	if err := r.SetReadDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	col := newCollector(1<<20, nil)
	var done sync.WaitGroup
	done.Add(1)
	col.pump("stdout", r, &done)
	if got := col.stdout.String(); got != "ok\n" {
		t.Errorf("stdout %q, want the %q the pipe held", got, "ok\n")
	}
}
