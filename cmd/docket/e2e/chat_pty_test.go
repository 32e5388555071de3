package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// terminal is the far side of a pty, answering the queries a program
// writes as a terminal does: a cursor position report (CSI 6n) with a
// position and OSC 11 (background colour) with the colour. Like a terminal
// that looks the colour up asynchronously (a remote or multiplexed one),
// it sends the colour after the cursor report that was asked after it.
type terminal struct {
	mu      sync.Mutex
	f       *os.File
	out     bytes.Buffer
	scanned int // how far queries have been looked for (and answered)
	queries int
	done    chan struct{}
}

func newTerminal(f *os.File) *terminal {
	term := &terminal{f: f, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		var late string
		for {
			n, err := f.Read(buf)
			if n > 0 {
				term.mu.Lock()
				term.out.Write(buf[:n])
				var answer string
				// Each query once, in order, even when split across reads.
				for {
					rest := term.out.Bytes()[term.scanned:]
					osc, cpr := bytes.Index(rest, []byte("\x1b]11;?")), bytes.Index(rest, []byte("\x1b[6n"))
					if osc >= 0 && (cpr < 0 || osc < cpr) {
						// The colour is looked up asynchronously: its
						// answer follows the cursor report's.
						late += "\x1b]11;rgb:1c1c/1c1c/1c1c\x1b\\"
						term.queries++
						term.scanned += osc + 1
					} else if cpr >= 0 {
						answer += "\x1b[40;1R" + late
						late = ""
						term.scanned += cpr + 1
					} else {
						term.scanned = max(term.scanned, term.out.Len()-7)
						break
					}
				}
				term.mu.Unlock()
				if answer != "" {
					_, _ = f.Write([]byte(answer))
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return term
}

func (term *terminal) shown() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.out.String()
}

// TestChatResumeOnAPtyTakesNoTerminalAnswerAsInput opens a recorded
// session with `chat --resume` on a real pty whose far side answers the
// terminal queries as a terminal does, then presses Enter on the empty
// input and quits. The answer to the background-colour query Bubble Tea
// makes at start-up used to land in the input (1 to 5 starts in 5 on
// real terminals), and Enter sent it to the model as a prompt. No start
// may add a turn to the session.
func TestChatResumeOnAPtyTakesNoTerminalAnswerAsInput(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	script := replies(t, "first")
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "workspace-write", "-a", "never",
		"--model-script", script, "hello")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	for start := 1; start <= 5; start++ {
		cmd := exec.Command(docketBin, "chat", "--resume", sf.ID, "--home", home, "-C", ws, "--model-script", script)
		env := []string{"TERM=xterm-256color"}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "COLORFGBG=") && !strings.HasPrefix(kv, "TERM=") {
				env = append(env, kv)
			}
		}
		cmd.Env = env
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			t.Fatal(err)
		}
		term := newTerminal(f)
		if !waitFor(func() bool { return strings.Contains(term.shown(), "Enter send") }) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("start %d: the chat UI never came up:\n%q", start, term.shown())
		}
		if _, err := f.Write([]byte("\r")); err != nil {
			t.Fatal(err)
		}
		// Quit: Ctrl-C quits an idle chat with nothing typed, and
		// interrupts a turn first if Enter started one.
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var werr error
		for quit := false; !quit; {
			_, _ = f.Write([]byte("\x03"))
			select {
			case werr = <-exited:
				quit = true
			case <-time.After(2 * time.Second): // only paces the presses; nothing is asserted on it
			}
		}
		f.Close()
		<-term.done
		if werr != nil {
			t.Logf("start %d: chat exited: %v", start, werr)
		}
		var turns []string
		for _, rec := range readJournal(t, sf.Path) {
			b, err := rec.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if u, ok := b.(*events.UserTurn); ok {
				turns = append(turns, u.Text)
			}
		}
		if len(turns) != 1 {
			t.Fatalf("start %d (%d background-colour queries answered): the session has the prompts %q; Enter on an empty input sent a terminal's answer",
				start, term.queries, turns)
		}
	}
}
