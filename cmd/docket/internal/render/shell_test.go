package render

import (
	"errors"
	"time"

	"github.com/creack/pty"
	"os"
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

func TestShellJoinQuotesLikeCodex(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"bash", "-lc", "ls"}, "bash -lc ls"},
		{[]string{"bash", "-lc", "ls -la"}, "bash -lc 'ls -la'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo 'it'"'"'s'`},
		{[]string{"git", "log", "--format=%H"}, "git log '--format=%H'"},
		{[]string{"cat", "/a/b-c_d.txt", "user@host:1"}, "cat /a/b-c_d.txt user@host:1"},
		{[]string{"echo", "$HOME", "*"}, "echo '$HOME' '*'"},
		{[]string{"echo", "héllo"}, "echo héllo"},
		{nil, ""},
	} {
		if got := ShellJoin(tc.argv); got != tc.want {
			t.Errorf("ShellJoin(%q) = %s, want %s", tc.argv, got, tc.want)
		}
	}
}

// splitShell parses a command line the way a POSIX shell would.
func splitShell(t *testing.T, line string) []string {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	var words []*syntax.Word
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			words = append(words, c.Args...)
			return false
		}
		return true
	})
	out, err := expand.Fields(&expand.Config{Env: expand.ListEnviron()}, words...)
	if err != nil {
		t.Fatalf("expand %q: %v", line, err)
	}
	return out
}

// FuzzShellJoin checks that a shell reads ShellJoin's output back as the
// same argv.
func FuzzShellJoin(f *testing.F) {
	f.Add("ls", "-la", "it's a 'test'")
	f.Add("", "$(rm -rf /)", "`x`\\\"")
	f.Add("a\nb", "~user", "{a,b}")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		argv := []string{"cmd", a, b, c}
		for _, s := range argv {
			// NUL cannot be in an argv; the parser used as the reference
			// reads CR LF as LF even inside quotes, which bash does not.
			if strings.ContainsAny(s, "\x00\r") || !utf8Valid(s) {
				return
			}
		}
		if got := splitShell(t, ShellJoin(argv)); !reflect.DeepEqual(got, argv) {
			t.Fatalf("ShellJoin(%q) = %s reads back as %q", argv, ShellJoin(argv), got)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestIsTerminalOnAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(r) || IsTerminal(nil) {
		t.Error("a pipe is not a terminal")
	}
}

func TestIsTerminalOnAPTYKeepsDeadlines(t *testing.T) {
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	if !IsTerminal(tty) {
		t.Fatal("a pty is a terminal")
	}
	// Asking must not have put the file in blocking mode.
	if err := tty.SetReadDeadline(time.Unix(1, 0)); err != nil {
		t.Fatalf("deadline after IsTerminal: %v", err)
	}
	if _, err := tty.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past a deadline = %v, want ErrDeadlineExceeded", err)
	}
}
