package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
)

// processesWith returns the pids of processes running "prog marker"
// (marker: a number no other test uses).
func processesWith(t *testing.T, prog, marker string) []string {
	t.Helper()
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		argv := strings.Split(string(b), "\x00")
		if err == nil && len(argv) > 1 && filepath.Base(argv[0]) == prog && argv[1] == marker {
			out = append(out, filepath.Base(filepath.Dir(d)))
		}
	}
	return out
}

// runWord is a number (a sleep length, a word to print) that no other
// test, nor another run of this one on the machine, uses: slot, then this
// process's pid in seven digits (pid_max is at most 2^22). A plain
// base+pid let one run's 4_000_000+pid equal another's 5_000_000+pid.
func runWord(slot int) string {
	return fmt.Sprintf("%d%07d", slot, os.Getpid())
}

func TestAFloodIsBoundedToTheCallsBudget(t *testing.T) {
	f, _ := uexecFixture(t, "read-only", strings.Join([]string{
		execLine("c1", `{"cmd":"head -c 3000000 /dev/zero | tr '\\0' x","max_output_tokens":100,"yield_time_ms":10000}`),
		done}, "\n"))
	f.turn("flood")
	out := f.outputs()["c1"]
	if !strings.Contains(out, "Process exited with code 0") || !strings.Contains(out, "tokens truncated") {
		t.Fatalf("c1: %.300q", out)
	}
	if len(out) > 1000 {
		t.Fatalf("a 100-token budget let %d bytes through", len(out))
	}
	// The count before truncation says how much there was (the table keeps
	// at most 1 MiB between polls, and counts what it dropped).
	var n int
	if _, err := fmt.Sscanf(out[strings.Index(out, "Original token count: "):], "Original token count: %d", &n); err != nil || n < 750000 || n > 751000 {
		t.Fatalf("original count: %.300q", out)
	}
}

func TestAProcessThatNeverYieldsStaysRunningAndDiesWithTheSession(t *testing.T) {
	// Looked for host-wide: a word of this run's own (see
	// TestStartsPastTheLimitEndTheOldest).
	word := runWord(4)
	f, procs := uexecFixture(t, "read-only", strings.Join([]string{
		execLine("c1", `{"cmd":"yes `+word+`","max_output_tokens":50,"yield_time_ms":300}`),
		writeLine("c2", `{"session_id":1000,"yield_time_ms":0,"max_output_tokens":50}`),
		done}, "\n"))
	f.turn("never yields")
	out := f.outputs()
	for _, c := range []string{"c1", "c2"} {
		if !strings.Contains(out[c], "Process running with session ID 1000") {
			t.Fatalf("%s: %.300q", c, out[c])
		}
	}
	// However slow the start, the 5 s poll sees the flood.
	if !strings.Contains(out["c1"]+out["c2"], word) {
		t.Fatalf("no output reached the model: %.300q", out["c2"])
	}
	if len(processesWith(t, "yes", word)) == 0 {
		t.Fatal("the process is not running between calls")
	}
	procs.Close()
	if p := processesWith(t, "yes", word); len(p) != 0 {
		t.Fatalf("the session ended but %v run on", p)
	}
}

func TestAProcessThatForksADaemonAndExitsLeavesNothingBehind(t *testing.T) {
	for _, mode := range []string{"read-only", "danger-full-access"} {
		t.Run(mode, func(t *testing.T) {
			// Looked for host-wide: a word of this run's own, not a fixed
			// number another checkout's run of this test also sleeps.
			marker := runWord(map[string]int{"read-only": 6, "danger-full-access": 7}[mode])
			f, _ := uexecFixture(t, mode, strings.Join([]string{
				execLine("c1", fmt.Sprintf(`{"cmd":"setsid sleep %s </dev/null >/dev/null 2>&1 & echo forked","yield_time_ms":2000}`, marker)),
				done}, "\n"))
			f.turn("daemon")
			if out := f.outputs()["c1"]; !strings.Contains(out, "Process exited with code 0") || !strings.Contains(out, "forked") {
				t.Fatalf("c1: %q", out)
			}
			if p := processesWith(t, "sleep", marker); len(p) != 0 {
				t.Fatalf("the daemon %v outlived the call's process", p)
			}
		})
	}
}

func TestAPtyEchoingEscapeSequencesIsJournaledAsIsAndRenderedHarmless(t *testing.T) {
	f, _ := uexecFixture(t, "read-only", strings.Join([]string{
		execLine("c1", `{"cmd":"printf '\\033]0;owned\\007\\033[2J\\033[31mred\\033[0m\\n'","tty":true,"yield_time_ms":2000}`),
		done}, "\n"))
	f.turn("escapes")
	out := f.outputs()["c1"]
	if !strings.Contains(out, "\x1b]0;owned\x07") {
		t.Fatalf("the model should get the bytes as they came: %q", out)
	}
	if shown := safetext.Text(out); strings.ContainsAny(shown, "\x1b\x07") {
		t.Fatalf("the renderer let a control through: %q", shown)
	}
}

// Past the limit, a new process ends the oldest, journaled before the start.
func TestStartsPastTheLimitEndTheOldest(t *testing.T) {
	// The sleeps are counted host-wide: a length of this run's own, so
	// that another run of this test (a second checkout, CI beside a
	// developer) is not counted.
	secs := runWord(5)
	var lines []string
	for i := 0; i < 18; i++ {
		lines = append(lines, execLine(fmt.Sprintf("c%d", i), `{"cmd":"sleep `+secs+`","yield_time_ms":0}`))
	}
	lines = append(lines, writeLine("w", `{"session_id":1000}`), done)
	f, procs := uexecFixture(t, "read-only", strings.Join(lines, "\n"))
	f.turn("many")
	if n := len(procs.Live()); n != 16 {
		t.Fatalf("%d live processes, want 16", n)
	}
	// The newest may still be in its login shell: wait (bounded) until
	// its sleep runs, then there must be exactly 16.
	for i := 0; i < 600 && len(processesWith(t, "sleep", secs)) < 16; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(processesWith(t, "sleep", secs)); n != 16 {
		t.Fatalf("%d sleeps running, want 16", n)
	}
	recs, _ := f.j.All()
	var ended []int
	for _, r := range recs {
		if r.Kind == events.KindProcessEnded {
			b, _ := r.Decode()
			ended = append(ended, b.(*events.ProcessEnded).ID)
		}
	}
	if fmt.Sprint(ended) != "[1000 1001]" {
		t.Fatalf("ended %v", ended)
	}
	if out := f.outputs()["w"]; !strings.Contains(out, "ended to make room") {
		t.Fatalf("w: %q", out)
	}
}

// Session ids are per session: another session's write to the same id
// reaches nothing, and the first session's process runs on untouched.
func TestNothingOfOneSessionReachesAnother(t *testing.T) {
	a, procsA := uexecFixture(t, "read-only", strings.Join([]string{
		execLine("c1", `{"cmd":"sleep 6660001","yield_time_ms":250}`), done}, "\n"))
	a.turn("start")
	b, _ := uexecFixture(t, "read-only", strings.Join([]string{
		writeLine("w1", `{"session_id":1000,"chars":""}`), done}, "\n"))
	b.turn("poke")
	if out := b.outputs()["w1"]; out != "Invalid call: write_stdin failed: Unknown process id 1000" {
		t.Fatalf("the other session's write: %q", out)
	}
	if live := procsA.Live(); len(live) != 1 || live[0] != 1000 {
		t.Fatalf("the first session's processes: %v", live)
	}
}
