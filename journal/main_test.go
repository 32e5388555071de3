package journal

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The process tests re-run this test binary as a child: childEnv names the
// role, and TestMain runs it instead of the tests.
const (
	childEnv     = "DOCKET_JOURNAL_TEST_CHILD"
	childPathEnv = "DOCKET_JOURNAL_TEST_PATH"
	childHomeEnv = "DOCKET_JOURNAL_TEST_HOME"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	os.Exit(m.Run())
}

func runChild(role string) int {
	var err error
	switch role {
	case "hold":
		err = childHold(os.Getenv(childPathEnv))
	case "writer":
		err = childWriter(os.Getenv(childHomeEnv))
	default:
		err = fmt.Errorf("unknown child role %q", role)
	}
	if err != nil {
		fmt.Println("error:", err)
		return 2
	}
	return 0
}

// childHold opens a journal for writing, says so, and holds it until its
// stdin closes.
func childHold(path string) error {
	j, err := Open(path)
	if err != nil {
		return err
	}
	fmt.Printf("ready %d\n", os.Getpid())
	io.Copy(io.Discard, os.Stdin)
	return j.Close()
}

// childWriter appends bodyFor records in commits of 1..5 and reports each
// commit's last seq on stdout once Commit has returned. It runs until killed.
func childWriter(home string) error {
	j, err := Create(home, testID, started())
	if err != nil {
		return err
	}
	for round := 0; j.NextSeq() < 1_000_000; round++ {
		for i := 0; i <= round%5; i++ {
			seq := j.NextSeq()
			call, body := bodyFor(testID, seq)
			if _, err := j.Append(atOf(seq), call, body); err != nil {
				return err
			}
		}
		if err := j.Commit(); err != nil {
			return err
		}
		if _, err := fmt.Printf("committed %d\n", j.NextSeq()-1); err != nil {
			return err
		}
	}
	return j.Close()
}

// child is a running re-execution of the test binary in some role.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

func startChild(t *testing.T, role string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + role}, env...)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

// line returns the child's next stdout line; it fails the test on EOF or on
// a line reporting an error.
func (c *child) line(t *testing.T) string {
	t.Helper()
	if !c.lines.Scan() {
		t.Fatalf("child ended early: %v", c.lines.Err())
	}
	l := c.lines.Text()
	if strings.HasPrefix(l, "error:") {
		t.Fatalf("child: %s", l)
	}
	return l
}
