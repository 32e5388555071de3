package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"
)

// cliBinary is the docket binary for a test that needs a real process (a
// terminal session needs its own controlling terminal): the one named by
// $DOCKET_TEST_BIN (make builds it once before the tests), or else one
// built once for the whole test binary.
func cliBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the docket binary")
	}
	if bin := os.Getenv("DOCKET_TEST_BIN"); bin != "" {
		return bin
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "docket-cli-test-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		built.bin = filepath.Join(dir, "docket")
		if out, err := exec.Command("go", "build", "-tags", "grpcnotrace", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build docket: %w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// built is the docket binary cliBinary built for this test binary; TestMain
// removes its directory when the tests are done.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// cliScreen collects a terminal's output so a test can wait for text.
type cliScreen struct {
	mu   sync.Mutex
	cond *sync.Cond
	text strings.Builder
	done bool
}

func newCLIScreen(f *os.File) *cliScreen {
	s := &cliScreen{}
	s.cond = sync.NewCond(&s.mu)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			s.mu.Lock()
			s.text.WriteString(strings.ReplaceAll(string(buf[:n]), "\r", ""))
			if err != nil {
				s.done = true
			}
			s.cond.Broadcast()
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// waitFor blocks until want has been shown; it fails if the terminal
// closes first. The test's -timeout bounds it.
func (s *cliScreen) waitFor(t *testing.T, want string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !strings.Contains(s.text.String(), want) {
		if s.done {
			t.Fatalf("terminal closed before showing %q:\n%s", want, s.text.String())
		}
		s.cond.Wait()
	}
	return s.text.String()
}

func (s *cliScreen) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.done {
		s.cond.Wait()
	}
	return s.text.String()
}

// TestExecAsksOnTheTerminal runs docket exec with a pseudo-terminal as its
// controlling terminal, answers the approval prompt by typing, and checks
// that the answer decided what ran.
func TestExecAsksOnTheTerminal(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	script := `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c","echo made > made.txt"],"workdir":"."}}]}
{"output":[{"type":"message","content":"Finished the task."}]}
`
	for _, tc := range []struct {
		answer string
		code   int
		made   bool
	}{
		{"y", exitOK, true},
		{"n", exitOK, false},
		{"a", exitFailed, false},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			sp := filepath.Join(dir, "script.jsonl")
			if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--home", filepath.Join(dir, "home"), "-C", ws, "-a", "untrusted",
				"-s", "workspace-write", "--model-script", sp, "write made.txt")
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			ptmx, err := pty.Start(cmd)
			if err != nil {
				t.Fatalf("start under a pty: %v", err)
			}
			defer ptmx.Close()
			scr := newCLIScreen(ptmx)
			shown := scr.waitFor(t, "answer (y/s/")
			for _, s := range []string{"Approval requested for call c1 (exec, initial)", "command: bash -c 'echo made > made.txt'", "cwd:     " + ws} {
				if !strings.Contains(shown, s) {
					t.Errorf("prompt lacks %q:\n%s", s, shown)
				}
			}
			if _, err := ptmx.Write([]byte(tc.answer + "\n")); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			out := scr.all()
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, out)
			}
			_, statErr := os.Stat(filepath.Join(ws, "made.txt"))
			if made := statErr == nil; made != tc.made {
				t.Errorf("made.txt exists = %v, want %v:\n%s", made, tc.made, out)
			}
			if tc.code == exitOK && !strings.Contains(out, "Finished the task.") {
				t.Errorf("no final message:\n%s", out)
			}
		})
	}
}
