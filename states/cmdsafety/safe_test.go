package cmdsafety

import (
	"strings"
	"testing"
)

func TestEveryPlainKnownSafeToolIsSafeWithArgumentsAndInScripts(t *testing.T) {
	for _, tool := range strings.Fields("cat cd cut echo expr false grep head id ls nl paste pwd rev seq stat tail tr true uname uniq wc which whoami numfmt tac") {
		t.Run(tool, func(t *testing.T) {
			for _, argv := range [][]string{
				{tool},
				{tool, "-x", "some-file"},
				{"/usr/bin/" + tool, "arg"},
				{"bash", "-lc", tool + " arg && ls"},
			} {
				if !IsKnownSafe(argv) {
					t.Errorf("IsKnownSafe(%q) = false; want true", argv)
				}
			}
			for _, argv := range [][]string{
				{"./" + tool, "arg"},
				{"/home/u/bin/" + tool},
				{"bash", "-lc", tool + " arg > out"},
				{"bash", "-lc", tool + " $X"},
				{"bash", "-lc", tool + " && rm -rf x"},
			} {
				if IsKnownSafe(argv) {
					t.Errorf("IsKnownSafe(%q) = true; want false", argv)
				}
			}
		})
	}
}

func TestUnlistedToolsAreNotKnownSafe(t *testing.T) {
	for _, argv := range [][]string{
		{"rm", "x"}, {"cargo", "check"}, {"python3", "-c", "1"}, {"sort", "x"},
		{"git", "fetch"}, {"git", "push"}, {"git"}, {"sed", "s/a/b/", "f"},
		{"bash", "-lc", "'git status'"}, {"bash", "-lc", "git", "status"}, {},
	} {
		if IsKnownSafe(argv) {
			t.Errorf("IsKnownSafe(%q) = true; want false", argv)
		}
	}
}

// exceptionCase names a tool whose base invocation is safe and a flag that,
// added to it, must make it unsafe.
type exceptionCase struct {
	name  string
	safe  []string
	added []string
}

func TestEachFlagExceptionFlipsASafeCommandToUnsafe(t *testing.T) {
	var cases []exceptionCase
	for _, f := range []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"} {
		cases = append(cases, exceptionCase{"find " + f, []string{"find", ".", "-name", "x"}, []string{f, "y"}})
	}
	for _, f := range [][]string{
		{"--pre", "cmd"}, {"--pre=cmd"}, {"--hostname-bin", "cmd"}, {"--hostname-bin=cmd"},
		{"--search-zip"}, {"-z"}, {"-nz"},
	} {
		cases = append(cases, exceptionCase{"rg " + strings.Join(f, " "), []string{"rg", "-n", "pat", "."}, f})
	}
	for _, f := range [][]string{
		{"-c", "core.pager=x"}, {"-ccore.pager=x"}, {"--config-env", "a=B"}, {"--config-env=a=B"},
		{"--exec-path=/x"}, {"--git-dir=/x"}, {"--git-dir", "/x"}, {"--namespace=x"},
		{"--super-prefix=x"}, {"--work-tree=/x"}, {"--output=/tmp/x"}, {"--output", "/tmp/x"},
		{"--outp=/tmp/x"}, {"--ext-diff"}, {"--textconv"}, {"--exec=x"}, {"--paginate"},
	} {
		for _, sub := range []string{"status", "log", "diff", "show", "branch"} {
			cases = append(cases, exceptionCase{"git " + sub + " " + strings.Join(f, " "), []string{"git", sub}, f})
		}
	}
	for _, f := range [][]string{{"-d", "feature"}, {"-D", "x"}, {"new-branch"}, {"-m", "a", "b"}, {"--delete", "x"}, {"-f", "x"}} {
		cases = append(cases, exceptionCase{"git branch " + strings.Join(f, " "), []string{"git", "branch", "-a"}, f})
	}
	for _, f := range [][]string{{"-o", "out"}, {"-oout"}, {"--output", "out"}, {"--output=out"}, {"--out=out"}, {"-do", "out"}} {
		cases = append(cases, exceptionCase{"base64 " + strings.Join(f, " "), []string{"base64", "in.txt"}, f})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !IsKnownSafe(c.safe) {
				t.Fatalf("base %q must be known-safe", c.safe)
			}
			with := append(append([]string{}, c.safe...), c.added...)
			if IsKnownSafe(with) {
				t.Fatalf("IsKnownSafe(%q) = true; the exception %q must make it unsafe", with, c.added)
			}
			script := []string{"bash", "-lc", strings.Join(with, " ")}
			if IsKnownSafe(script) {
				t.Fatalf("IsKnownSafe(%q) = true; want false inside a script too", script)
			}
		})
	}
}

func TestGitReadOnlySubcommandsAndListingBranchAreSafe(t *testing.T) {
	for _, argv := range [][]string{
		{"git", "status"}, {"git", "status", "--short"}, {"git", "log", "-p", "-1"},
		{"git", "log", "--oneline", "--exit-code"}, {"git", "diff", "--stat", "--no-ext-diff"},
		{"git", "show", "HEAD"}, {"git", "branch"}, {"git", "branch", "--show-current"},
		{"git", "branch", "-a", "-vv"}, {"git", "branch", "--format=%(refname)"},
		{"git", "-C", "sub", "status"}, {"git", "--no-pager", "log"}, {"/usr/bin/git", "status"},
		{"bash", "-lc", "git status && git log -1"},
	} {
		if !IsKnownSafe(argv) {
			t.Errorf("IsKnownSafe(%q) = false; want true", argv)
		}
	}
	for _, argv := range [][]string{
		{"git", "-p", "log"}, {"git", "commit"}, {"git", "-C", "x"}, {"git", "status-x"},
	} {
		if IsKnownSafe(argv) {
			t.Errorf("IsKnownSafe(%q) = true; want false", argv)
		}
	}
}

func TestSedIsSafeOnlyAsALinePrinter(t *testing.T) {
	for _, argv := range [][]string{
		{"sed", "-n", "10p"}, {"sed", "-n", "1,5p", "file.txt"}, {"bash", "-lc", "sed -n '1,5p' file.txt"},
	} {
		if !IsKnownSafe(argv) {
			t.Errorf("IsKnownSafe(%q) = false; want true", argv)
		}
	}
	for _, argv := range [][]string{
		{"sed", "-n", "xp", "f"}, {"sed", "-n", "1,5p", "a", "b"}, {"sed", "-n", "1,2,3p"},
		{"sed", "-n", ",5p"}, {"sed", "-n", "5"}, {"sed", "-i", "1p", "f"}, {"sed", "-n"},
		{"sed", "-n", "1w /etc/x"},
	} {
		if IsKnownSafe(argv) {
			t.Errorf("IsKnownSafe(%q) = true; want false", argv)
		}
	}
}

func TestExpansionCharactersAreNeverKnownSafeEvenWhenQuoted(t *testing.T) {
	for _, argv := range [][]string{
		{"echo", "$HOME"}, {"echo", "`id`"}, {"echo", "a>b"}, {"cat", "<(ls)"},
		{"bash", "-lc", "echo '$HOME'"}, {"bash", "-lc", `echo '>'`},
	} {
		if IsKnownSafe(argv) {
			t.Errorf("IsKnownSafe(%q) = true; want false", argv)
		}
	}
}

func TestACompoundScriptIsSafeOnlyIfEveryPartIs(t *testing.T) {
	if !IsKnownSafe([]string{"bash", "-lc", "ls && pwd | wc -l; echo done || true"}) {
		t.Fatal("all-safe compound script must be known-safe")
	}
	for _, s := range []string{"ls && touch x", "touch x; ls", "ls | tee x", "cat a || python3 x"} {
		if IsKnownSafe([]string{"bash", "-lc", s}) {
			t.Errorf("script %q with one unsafe part is known-safe", s)
		}
	}
}
