package rulesfile

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docket-engine/docket/states/rules"
)

// The amend child: when this variable is set, the test binary appends
// amendments instead of running tests (see TestMain).
const childEnv = "DOCKET_RULES_AMEND_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(amendChild(spec))
	}
	os.Exit(m.Run())
}

// amendChild amends, for i in [0, n), "shared-<i>" (which the other child
// amends too, racing on the same lines) and "<own>-<i>"; spec is "home|own|n".
func amendChild(spec string) int {
	parts := strings.Split(spec, "|")
	n, _ := strconv.Atoi(parts[2])
	for i := 0; i < n; i++ {
		for _, tool := range []string{"shared-" + strconv.Itoa(i), parts[1] + "-" + strconv.Itoa(i)} {
			if _, _, err := Amend(parts[0], []string{tool, "run"}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	}
	return 0
}

func TestTwoProcessesAmendingAtOnceLoseNothing(t *testing.T) {
	home := t.TempDir()
	const n = 200
	var cmds []*exec.Cmd
	for _, own := range []string{"a", "b"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%d", childEnv, home, own, n))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("amending child failed: %v", err)
		}
	}
	b, err := os.ReadFile(filepath.Join(home, rules.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Fatalf("duplicate line %q", l)
		}
		seen[l] = true
	}
	for _, tool := range []string{"shared", "a", "b"} {
		for i := 0; i < n; i++ {
			want := fmt.Sprintf(`prefix_rule(pattern=["%s-%d", "run"], decision="allow")`, tool, i)
			if !seen[want] {
				t.Fatalf("line for %s-%d lost", tool, i)
			}
		}
	}
	if len(lines) != 3*n {
		t.Fatalf("file has %d lines; want %d", len(lines), 3*n)
	}
	s, err := Load(Discover(home, ""), rules.LoadOptions{})
	if err != nil || s.Len() != 3*n {
		t.Fatalf("amended file does not load back: %v (%d rules)", err, s.Len())
	}
}

func TestAmendmentsAreOneCodexStyleLineAndDeduplicated(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, rules.DefaultFile)
	line, written, err := Amend(home, []string{"echo", "Hello, world!"})
	if err != nil || !written {
		t.Fatalf("first amend: %v written=%v", err, written)
	}
	if line != `prefix_rule(pattern=["echo", "Hello, world!"], decision="allow")` {
		t.Fatalf("line = %s", line)
	}
	if _, written, _ := Amend(home, []string{"echo", "Hello, world!"}); written {
		t.Fatal("the same amendment was written twice")
	}
	a, err := AmendFile(file, []string{"a<b>&c", "quote\"and\\slash", "new\nline", "ünï"})
	if err != nil || !a.Written || a.Line != 2 {
		t.Fatalf("second amend = %+v, %v", a, err)
	}
	a, err = AmendFile(file, []string{"echo", "Hello, world!"})
	if err != nil || a.Written || a.Line != 1 {
		t.Fatalf("existing amend = %+v, %v; want found at line 1", a, err)
	}
	s, err := Load([]string{file}, rules.LoadOptions{})
	if err != nil {
		t.Fatalf("amended file does not load: %v", err)
	}
	if d := s.Evaluate([]string{"a<b>&c", "quote\"and\\slash", "new\nline", "ünï", "more"}).Decision; d != rules.Allow {
		t.Fatalf("amendment with special characters does not match its command: %s", d)
	}
	b, _ := os.ReadFile(file)
	if strings.Count(string(b), "\n") != 2 {
		t.Fatalf("file is not one line per amendment:\n%s", b)
	}
}

func TestAmendAddsAMissingFinalNewlineFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rules", "default.rules")
	writeFile(t, file, `prefix_rule(pattern=["ls"], decision="allow")`)
	a, err := AmendFile(file, []string{"make", "test"})
	if err != nil || a.Line != 2 {
		t.Fatalf("amend = %+v, %v", a, err)
	}
	b, _ := os.ReadFile(file)
	want := "prefix_rule(pattern=[\"ls\"], decision=\"allow\")\nprefix_rule(pattern=[\"make\", \"test\"], decision=\"allow\")\n"
	if string(b) != want {
		t.Fatalf("file =\n%s\nwant\n%s", b, want)
	}
}

func TestOverBroadPrefixesAreNeverSaved(t *testing.T) {
	home := t.TempDir()
	for _, p := range [][]string{
		{}, {"bash", "-lc"}, {"sh", "-c"}, {"zsh", "-lc"}, {"/bin/bash", "-lc"}, {"bash"},
		{"python3"}, {"python3", "-c"}, {"python3", "-"}, {"python"}, {"node", "-e"}, {"node"},
		{"perl", "-e"}, {"ruby", "-e"}, {"env"}, {"env", "FOO=1"}, {"sudo"}, {"sudo", "-E"},
		{"sudo", "bash", "-c"}, {"git"}, {"git", "-C", "dir"}, {"git", "--no-pager"},
		{"xargs"}, {"timeout", "10"}, {"osascript"}, {"ls", ""},
	} {
		if !rules.OverBroad(p) {
			t.Errorf("rules.OverBroad(%q) = false; want true", p)
		}
		_, _, err := Amend(home, p)
		if !errors.Is(err, rules.ErrOverBroad) {
			t.Errorf("Amend(%q) err = %v; want rules.ErrOverBroad", p, err)
		}
	}
	for _, p := range [][]string{
		{"git", "push"}, {"git", "-C", "dir", "status"}, {"python3", "manage.py", "test"},
		{"python3", "-c", "print(1)"}, {"bash", "-lc", "make test"}, {"sudo", "apt", "update"},
		{"env", "FOO=1", "make"}, {"cargo", "test"}, {"rm"},
	} {
		if rules.OverBroad(p) {
			t.Errorf("rules.OverBroad(%q) = true; want false", p)
		}
	}
	if _, err := os.Stat(filepath.Join(home, rules.DefaultFile)); !os.IsNotExist(err) {
		t.Fatal("a refused amendment created the rules file")
	}
}

func TestDiscoverListsHomeThenProjectFilesSorted(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home", ".docket")
	project := filepath.Join(root, "proj")
	for _, p := range []string{
		filepath.Join(home, "rules", "b.rules"), filepath.Join(home, "rules", "a.rules"),
		filepath.Join(home, "rules", "notes.txt"), filepath.Join(project, ".docket", "rules", "z.rules"),
		filepath.Join(project, ".docket", "rules", "c.rules"),
	} {
		writeFile(t, p, "")
	}
	if err := os.MkdirAll(filepath.Join(home, "rules", "dir.rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := Discover(home, project)
	want := []string{
		filepath.Join(home, "rules", "a.rules"), filepath.Join(home, "rules", "b.rules"),
		filepath.Join(project, ".docket", "rules", "c.rules"), filepath.Join(project, ".docket", "rules", "z.rules"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Discover = %q; want %q", got, want)
	}
	// A project at the user's home directory sees the same files once.
	if got := Discover(home, filepath.Dir(home)); len(got) != 2 {
		t.Fatalf("Discover(home, parent of home) = %q; want the two home files once", got)
	}
	if got := Discover("", ""); got != nil {
		t.Fatalf("Discover with no roots = %q", got)
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
