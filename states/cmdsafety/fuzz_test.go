package cmdsafety

import (
	"strings"
	"testing"
)

func hasForbiddenMeta(s string) bool {
	return strings.ContainsAny(s, "$`>") || strings.Contains(s, "<(")
}

// FuzzScript feeds arbitrary scripts through every classifier: nothing may
// panic, and no script with an expansion or redirection character is safe.
func FuzzScript(f *testing.F) {
	for _, s := range []string{
		"ls", "ls && pwd", "echo $HOME", "cat <(ls)", "ls > x", "echo `id`",
		"git status; git log -1", "rm -rf x", "sed -n 1,5p f", "(ls)", "echo '$'",
		"f() { ls; }", "ls | wc -l", "echo \"a\\$b\"", "find . -delete", "sudo rm -f x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		for _, shell := range []string{"bash", "sh", "zsh"} {
			argv := []string{shell, "-lc", script}
			safe := IsKnownSafe(argv)
			if safe && hasForbiddenMeta(script) {
				t.Fatalf("IsKnownSafe(%q) = true for a script with an expansion character", argv)
			}
			cmds, ok := Commands(argv)
			if ok && len(cmds) == 0 {
				t.Fatalf("Commands(%q) ok with no commands", argv)
			}
			if safe && !ok {
				t.Fatalf("IsKnownSafe(%q) = true but the script is not plain", argv)
			}
			IsDangerous(argv)
			checkLiteralAgainstWalk(t, argv)
			a := Analyze(argv)
			a.Dangerous()
			if a.KnownSafe() != safe {
				t.Fatalf("Analyze(%q).KnownSafe() after Dangerous() = %v; IsKnownSafe = %v", argv, !safe, safe)
			}
			segs, _ := a.Segments()
			for i := range segs {
				a.Segment(i).KnownSafe()
				a.Segment(i).Dangerous()
			}
		}
	})
}

// FuzzArgv does the same for a direct argv, NUL-separated.
func FuzzArgv(f *testing.F) {
	for _, s := range []string{"ls\x00-l", "git\x00status", "echo\x00$HOME", "rg\x00-z", "sudo\x00rm\x00-rf\x00/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		argv := strings.Split(joined, "\x00")
		if IsKnownSafe(argv) && hasForbiddenMeta(joined) {
			t.Fatalf("IsKnownSafe(%q) = true for an argv with an expansion character", argv)
		}
		IsDangerous(argv)
		Commands(argv)
	})
}
